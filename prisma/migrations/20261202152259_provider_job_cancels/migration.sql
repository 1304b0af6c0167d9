-- AlterTable
ALTER TABLE "provider_jobs" ADD COLUMN     "cancel_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "cancel_due_at" TIMESTAMPTZ(3),
ADD COLUMN     "cancel_error" TEXT,
ADD COLUMN     "canceled_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "provider_jobs_cancel_due_idx" ON "provider_jobs"("cancel_due_at") WHERE (cancel_due_at IS NOT NULL);
