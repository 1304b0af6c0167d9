// The 200 of GET /runs/{run_id}/events and /app-runs/{run_id}/events in the
// OpenAPI document: an event stream has no JSON schema of its own, so its
// events are described here, their data by the schemas they name.
export const RUN_EVENTS_DESCRIPTION = [
  'A Server-Sent Events stream (`text/event-stream`) of the run, until it ends (docs/api.md#following-a-run-live). ',
  'Every event but `delta` has an `id:` (opaque: send the last one back as `Last-Event-ID` when reconnecting); every event has one line of JSON as `data:`. ',
  'Events: `run`, the whole record as GET of the run answers it (always the first event, also of a resumed stream, ',
  'then again whenever it changes); `node`, a node that changed state (its data: #/components/schemas/RunNodeEvent); ',
  '`end`, the final record (completed, failed or canceled), after which the stream closes; ',
  '`delta`, text a node produces as it comes (an `llm` node streaming its answer; its data: #/components/schemas/RunDeltaEvent), `index` counting ',
  "the chunks of the node's execution from 0 (0 again: its text starts over), the text of its chunks in order making its output. ",
  'Deltas have no id and are never stored: a resumed stream sends none from before it, and a client that reads too slowly may miss some ',
  "(a gap in `index`); the output is in the run's results. Clients that do not read them can ignore them. ",
  'A stream opened on a run that has ended sends `run` then `end`. Events are snapshots: several quick changes may ',
  'come as one event with the latest state. An idle stream gets a comment line (`: keep-alive`) every 15 s. ',
  'A stream that closes without `end` (a network error, a gateway instance stopping): reconnect with Last-Event-ID after about 1 s.',
].join('');
