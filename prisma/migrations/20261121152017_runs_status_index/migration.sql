-- DropIndex
DROP INDEX "runs_status_updated_at_idx";

-- CreateIndex
CREATE INDEX "runs_status_idx" ON "runs"("status");

-- Written by hand (Prisma has no syntax for storage parameters; its schema diff ignores them):
-- room in each page for the new version of a row, so that the updates of a run's progress
-- and of its nodes' states stay on the page (HOT) instead of adding an entry to every index.
ALTER TABLE "runs" SET (fillfactor = 80);
ALTER TABLE "node_executions" SET (fillfactor = 80);
