import { MAX_NODE_TIMEOUT_MS } from '@weft/contracts';

// The longest a node of each kind may be given (`params.timeout_ms`), whatever
// its flow asks: long enough for the slowest honest work of the kind, short
// enough that a stuck node ends its run the same hour.

/** A call to a provider (generation can take long, queues longer). */
export const PROVIDER_MAX_TIMEOUT_MS = MAX_NODE_TIMEOUT_MS;

/** Media processed by the worker itself. */
export const MEDIA_MAX_TIMEOUT_MS = 10 * 60_000;

/** Text and bookkeeping that answer at once. */
export const QUICK_MAX_TIMEOUT_MS = 60_000;
