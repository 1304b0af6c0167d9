-- CreateTable
CREATE TABLE "organization_node_routes" (
    "organization_id" UUID NOT NULL,
    "node_type" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "model" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organization_node_routes_pkey" PRIMARY KEY ("organization_id","node_type")
);

-- AddForeignKey
ALTER TABLE "organization_node_routes" ADD CONSTRAINT "organization_node_routes_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
