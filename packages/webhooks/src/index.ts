// @weft/webhooks: the events of runs sent to receivers (docs/api.md#webhooks).
// The engine records each event as a delivery in the commit that makes it
// happen; this package signs and sends deliveries (workers), keeps their
// attempts, and serves the organizations' endpoints, secrets and delivery lists
// (gateway).
export {
  createEndpoint,
  deleteEndpoint,
  endpointsPage,
  getEndpoint,
  MAX_ENDPOINTS_PER_ORGANIZATION,
} from './endpoints';
export { deliveriesPage, getDelivery, markForResend, type DeliveryFilter, type Resent } from './deliveries';
export { ATTEMPT_TIMEOUT_MS, deliverAttempt, type DeliveryDeps } from './deliver';
export { DeliveryStore } from './delivery-store';
export { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, retryDelay } from './schedule';
export { organizationSecret, resealWebhookSecrets } from './secrets';
export { newSigningSecret, signedHeaders } from './signing';
export { sweepDeliveries } from './sweep';
export { webhookEnvShape } from './webhook-env';
export type { AttemptOutcome } from './send';
