-- AlterTable
ALTER TABLE "node_executions" ADD COLUMN     "run_version" INTEGER NOT NULL DEFAULT 0;
