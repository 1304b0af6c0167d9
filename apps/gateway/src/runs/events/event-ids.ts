import { z } from '@weft/contracts';

/**
 * Where a client is in a run's events; every event's id carries it, so the
 * `Last-Event-ID` of a reconnecting client says exactly what it has:
 * - `version`, `node`: the last node change it was sent, as the run version of
 *   that change and the node's id. Node changes are sent in order of version,
 *   then of the node's place in the flow (upstream first): a resumed stream
 *   sends the changes after this one, and only those.
 * - `records`: how many `run` and `end` events it was sent, so that each has
 *   an id of its own, the `run` a resumed stream starts with included.
 */
export interface Cursor {
  records: number;
  version: number;
  /** '' before the first node change. */
  node: string;
}

/** A stream opened without Last-Event-ID: every node of the run is news. */
export const START: Cursor = { records: 0, version: 0, node: '' };

// `<records>.<version>.<node id, URI-encoded>`: one line of text whatever the node id holds.
const EVENT_ID = /^(\d{1,9})\.(\d{1,10})\.([A-Za-z0-9\-_.!~*'()%]*)$/;
const MAX_VERSION = 2 ** 31 - 1;

export function eventId(cursor: Cursor): string {
  return `${cursor.records}.${cursor.version}.${encodeURIComponent(cursor.node)}`;
}

/** The cursor an event id carries; undefined when it is not an id these streams send. */
export function parseEventId(id: string): Cursor | undefined {
  const match = EVENT_ID.exec(id);
  if (!match) return undefined;
  const version = Number(match[2]);
  if (version > MAX_VERSION) return undefined;
  try {
    return { records: Number(match[1]), version, node: decodeURIComponent(match[3]!) };
  } catch {
    return undefined;
  }
}

export const NOT_AN_EVENT_ID =
  "expected the id of an event of this run's stream (the `id:` of the last event received)";

/** The request headers of an event stream: documented in the OpenAPI document, checked like any request part. */
export const RunEventsHeaders = z.object({
  'Last-Event-ID': z
    .string()
    .max(2048, NOT_AN_EVENT_ID)
    .refine((id) => id === '' || parseEventId(id) !== undefined, NOT_AN_EVENT_ID)
    .optional()
    .openapi({
      description:
        'The id of the last event received, when reconnecting: the stream then starts with the current record ' +
        '(`run`) and sends every change after that event, none before it. Empty or absent: from the start.',
    }),
});

/** Where a Last-Event-ID that does not fit the run is reported. */
export const LAST_EVENT_ID_LOC = ['header', 'Last-Event-ID'];
