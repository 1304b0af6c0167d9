-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 0;
