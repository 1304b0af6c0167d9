// Every Weft metric name, in one place: Grafana dashboards and Prometheus
// alert rules (infra/) depend on these exact names and labels, and
// apps/gateway/src/metrics/dashboard-metrics.int.test.ts checks them against
// what the processes expose. Rename nothing without updating infra/.

export const METRIC = {
  httpRequestDuration: 'weft_http_request_duration_seconds',
  rateLimitRejections: 'weft_rate_limit_rejections_total',
  runsStarted: 'weft_runs_started_total',
  runsEnded: 'weft_runs_ended_total',
  creditsReserved: 'weft_credits_reserved_total',
  creditsCharged: 'weft_credits_charged_total',
  creditsReleased: 'weft_credits_released_total',
  jobWait: 'weft_job_wait_seconds',
  jobProcessing: 'weft_job_processing_seconds',
  queueJobs: 'weft_queue_jobs',
  runsInProgress: 'weft_runs_in_progress',
  runsAwaitingReview: 'weft_runs_awaiting_review',
  runsStalled: 'weft_runs_stalled',
  workers: 'weft_workers',
  nodesWaitingForSlot: 'weft_nodes_waiting_for_slot',
  organizationsWaitingForSlot: 'weft_organizations_waiting_for_slot',
  clusterStateErrors: 'weft_cluster_state_errors_total',
  uploadMemoryReserved: 'weft_upload_memory_reserved_bytes',
  uploadsWaiting: 'weft_uploads_waiting',
  svgTraces: 'weft_svg_traces',
} as const;

/** The states of weft_queue_jobs{state}: BullMQ's job counts. */
export const QUEUE_JOB_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;
export type QueueJobState = (typeof QUEUE_JOB_STATES)[number];
