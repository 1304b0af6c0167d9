-- CreateEnum
CREATE TYPE "AssetProcessing" AS ENUM ('pending', 'succeeded', 'failed');

-- AlterTable
ALTER TABLE "assets" ADD COLUMN     "processed_at" TIMESTAMPTZ(3),
ADD COLUMN     "processing_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "processing_error" TEXT,
ADD COLUMN     "processing_status" "AssetProcessing" NOT NULL DEFAULT 'pending';

-- CreateIndex
CREATE INDEX "assets_processing_status_created_at_idx" ON "assets"("processing_status", "created_at");
