-- CreateEnum
CREATE TYPE "WebhookEvent" AS ENUM ('start', 'node', 'review', 'completed');

-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "has_webhooks" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "webhook" TEXT,
ADD COLUMN     "webhook_events" "WebhookEvent"[] DEFAULT ARRAY[]::"WebhookEvent"[];

-- CreateTable
CREATE TABLE "organization_webhook_secrets" (
    "organization_id" UUID NOT NULL,
    "key_version" INTEGER NOT NULL,
    "sealed" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organization_webhook_secrets_pkey" PRIMARY KEY ("organization_id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" "WebhookEvent"[],
    "key_version" INTEGER NOT NULL,
    "sealed" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "run_id" UUID NOT NULL,
    "endpoint_id" UUID,
    "url" TEXT,
    "event" "WebhookEvent" NOT NULL,
    "run_version" INTEGER NOT NULL,
    "node_id" TEXT,
    "node_status" "NodeStatus",
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "schedule_start" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    "body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "duration_ms" INTEGER NOT NULL,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("delivery_id","attempt")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_organization_id_created_at_id_idx" ON "webhook_endpoints"("organization_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_run_id_idx" ON "webhook_deliveries"("run_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_id_idx" ON "webhook_deliveries"("endpoint_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_organization_id_created_at_id_idx" ON "webhook_deliveries"("organization_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- AddForeignKey
ALTER TABLE "organization_webhook_secrets" ADD CONSTRAINT "organization_webhook_secrets_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
