-- CreateTable
CREATE TABLE "pending_credits" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "amount" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pending_credits_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "pending_credits_organization_id_idx" ON "pending_credits"("organization_id");

-- AddForeignKey
ALTER TABLE "pending_credits" ADD CONSTRAINT "pending_credits_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
