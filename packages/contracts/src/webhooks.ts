import { cursorPage, PaginationQuery, Uuid } from './common';
import { z } from './zod';

// Webhooks (docs/api.md#webhooks): the events of runs, sent to a run's own
// webhook and to its organization's endpoints, signed per Standard Webhooks.

/** What a receiver may ask for; on the wire each is `run.<event>`. */
export const WEBHOOK_EVENTS = ['start', 'node', 'review', 'completed'] as const;
export const WebhookEventSchema = z.enum(WEBHOOK_EVENTS).openapi('WebhookEvent', {
  description:
    '`start`: the run was created. `node`: a node settled (completed, failed, skipped, or waiting for review). ' +
    '`review`: the run waits for a human review. `completed`: the run ended (completed, failed or canceled).',
});
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** Longest webhook URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const URL_EXPECTED = 'Expected an http or https URL';
export const WebhookUrl = z
  .url({ protocol: /^https?$/, error: URL_EXPECTED })
  .max(MAX_WEBHOOK_URL_LENGTH, { error: `Expected a URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters` })
  .openapi({
    description: 'Where events are POSTed: http or https; the outbound address rules apply when it is called.',
  });

/** A non-empty set of events; a repeated one counts once. */
export const WebhookEventsFilter = z
  .array(WebhookEventSchema)
  .min(1, { error: 'Expected at least one of start, node, review, completed' })
  .max(WEBHOOK_EVENTS.length * 4)
  .transform((events) => WEBHOOK_EVENTS.filter((e) => events.includes(e)));

/** The fields POST /runs and POST /app-runs take to send the run's events to a URL of the caller's. */
export const RunWebhookFields = {
  webhook: WebhookUrl.optional().openapi({
    description:
      "A URL that receives this run's events (docs/api.md#webhooks), signed with the organization's secret " +
      '(`GET /webhooks/secret`).',
  }),
  webhook_events_filter: WebhookEventsFilter.optional().openapi({
    description: 'The events the `webhook` receives; default `["completed"]`. Only with `webhook`.',
  }),
};

export const CreateWebhookEndpointBody = z
  .object({
    url: WebhookUrl,
    events: WebhookEventsFilter.openapi({ description: 'The events it receives, from every run of the organization.' }),
  })
  .strict()
  .openapi('CreateWebhookEndpoint');

export const WebhookEndpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(WebhookEventSchema),
    created_at: z.iso.datetime(),
  })
  .openapi('WebhookEndpoint');

export const CreatedWebhookEndpointSchema = WebhookEndpointSchema.extend({
  secret: z.string().openapi({
    description: 'The `whsec_...` secret its deliveries are signed with. Shown only in this answer.',
  }),
}).openapi('CreatedWebhookEndpoint');

export const WebhookEndpointPageSchema = cursorPage(WebhookEndpointSchema, 'CursorPage_WebhookEndpoint');

export const WebhookAttemptSchema = z
  .object({
    attempt: z.number().int().openapi({ description: 'Counted from 1.' }),
    at: z.iso.datetime(),
    status_code: z.number().int().nullable().openapi({ description: "The receiver's status; null without an answer." }),
    error: z.string().nullable().openapi({ description: 'Why the attempt failed, when the receiver did not say 2xx.' }),
    duration_ms: z.number().int(),
  })
  .openapi('WebhookAttempt');

export const WebhookDeliverySchema = z
  .object({
    id: z.uuid().openapi({ description: 'The `webhook-id` header of every attempt: de-duplicate by it.' }),
    event: WebhookEventSchema,
    run_id: z.uuid(),
    endpoint_id: z.uuid().nullable().openapi({ description: "Null for a run's own webhook." }),
    url: z.string(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).openapi({
      description: '`pending` until an attempt gets a 2xx (`succeeded`) or the retries run out (`failed`).',
    }),
    attempts: z.array(WebhookAttemptSchema),
    next_attempt_at: z.iso
      .datetime()
      .nullable()
      .openapi({ description: 'When the next attempt is due; null once settled.' }),
    created_at: z.iso.datetime(),
  })
  .openapi('WebhookDelivery');

export const WebhookDeliveryPageSchema = cursorPage(WebhookDeliverySchema, 'CursorPage_WebhookDelivery');

export const ListWebhookDeliveriesQuery = PaginationQuery.extend({
  run_id: Uuid.toLowerCase().optional().openapi({ description: "Only this run's deliveries." }),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
});

export const WebhookSecretSchema = z
  .object({
    key: z.string().openapi({ description: "The `whsec_...` secret runs' own webhooks are signed with." }),
  })
  .openapi('WebhookSecret');

export type CreateWebhookEndpoint = z.output<typeof CreateWebhookEndpointBody>;
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;
