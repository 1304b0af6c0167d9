import { z } from '@weft/contracts';

/**
 * A place in a run's changes. Streams send them in one order, the same on
 * every connection and every gateway instance: version by version, each
 * version's node changes (upstream first), then the record at that version.
 * An event's id names the place of the event in that order, so it is the
 * same wherever the event is sent, and a `Last-Event-ID` says exactly what a
 * reconnecting client has:
 * - `node`: the node change of `version` it was sent last;
 * - `node` null: every change of `version` and the record at it;
 * - `node` '': none of `version`'s changes (only for the start, version 0).
 */
export interface Cursor {
  version: number;
  node: string | null;
}

/** A stream opened without Last-Event-ID: every node of the run is news. */
export const START: Cursor = { version: 0, node: '' };

/** Where a Last-Event-ID puts its client, and the newest run version it names. */
export interface LastEventId {
  cursor: Cursor;
  /** A run version the id was sent at: a run that has not reached it is not the id's run. */
  version: number;
}

const MAX_VERSION = 2 ** 31 - 1;
// `<version>` (a record), `<version>.<node id, URI-encoded>` (a node change), and
// `<version>~<either, or nothing for the start>` (the record a stream opens with, sent ahead of
// the changes its client has not had yet). One line of text whatever the node id holds.
const PLACE = /^(\d{1,10})(?:\.([A-Za-z0-9\-_.!~*'()%]+))?$/;
const OPENING = /^(\d{1,10})~(.*)$/;

const place = (cursor: Cursor) =>
  cursor.node === null
    ? `${cursor.version}`
    : cursor.node === ''
      ? ''
      : `${cursor.version}.${encodeURIComponent(cursor.node)}`;

/** The id of a node change. */
export const nodeEventId = (version: number, node: string): string => place({ version, node });

/** The id of the record at `version`, sent after that version's node changes (`run`, or `end`). */
export const recordEventId = (version: number): string => `${version}`;

/** The id of the record at `version` a stream opens with, its client then being at `cursor`. */
export const openingEventId = (version: number, cursor: Cursor): string => `${version}~${place(cursor)}`;

function parsePlace(text: string): Cursor | undefined {
  if (text === '') return START;
  const match = PLACE.exec(text);
  if (!match) return undefined;
  const version = Number(match[1]);
  if (version > MAX_VERSION) return undefined;
  if (match[2] === undefined) return { version, node: null };
  try {
    return { version, node: decodeURIComponent(match[2]) };
  } catch {
    return undefined;
  }
}

/** What an event id says of its client; undefined when it is not an id these streams send. */
export function parseEventId(id: string): LastEventId | undefined {
  const opening = OPENING.exec(id);
  if (!opening) {
    const cursor = id === '' ? undefined : parsePlace(id);
    return cursor && { cursor, version: cursor.version };
  }
  const version = Number(opening[1]);
  const cursor = parsePlace(opening[2]!);
  if (!cursor || version > MAX_VERSION || cursor.version > version) return undefined;
  return { cursor, version };
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
