-- CreateIndex
CREATE INDEX "runs_awaiting_review_idx" ON "runs"("organization_id", "kind", "created_at" DESC, "id" DESC) WHERE ("awaiting_human_review" = true);

-- CreateIndex
CREATE INDEX "runs_agent_runs_idx" ON "runs"("organization_id", "agent_id", "created_at" DESC, "id" DESC) WHERE ("kind" = 'agent');

-- CreateIndex
CREATE INDEX "runs_app_runs_idx" ON "runs"("organization_id", "app_id", "created_at" DESC, "id" DESC) WHERE ("kind" = 'app');
