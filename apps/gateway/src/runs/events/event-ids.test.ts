import { nodeEventId, openingEventId, parseEventId, recordEventId, START } from './event-ids';

// An event's id carries its client's place through Last-Event-ID: it must come back exactly,
// whatever a node id holds, and stay one line of text.

test.each(['topic', 'a.b.c', 'with space', 'line\nbreak', '100%', 'a~b', 'émoji 🎉', '1.2.3'])(
  'the place of a change of node %j comes back from its id, on one line',
  (node) => {
    const id = nodeEventId(345, node);
    expect(id).not.toMatch(/[\r\n\0]/);
    expect(parseEventId(id)).toEqual({ cursor: { version: 345, node }, version: 345 });
    // The record a stream opens with, its client being after that change.
    const opening = openingEventId(400, { version: 345, node });
    expect(opening).not.toMatch(/[\r\n\0]/);
    expect(parseEventId(opening)).toEqual({ cursor: { version: 345, node }, version: 400 });
  },
);

test('a record at a version, and the opening record of a stream from the start, have ids of their own', () => {
  expect(parseEventId(recordEventId(7))).toEqual({ cursor: { version: 7, node: null }, version: 7 });
  expect(parseEventId(openingEventId(7, START))).toEqual({ cursor: START, version: 7 });
  expect(parseEventId(openingEventId(7, { version: 7, node: null }))).toEqual({
    cursor: { version: 7, node: null },
    version: 7,
  });
  const ids = [
    recordEventId(7),
    openingEventId(7, START),
    openingEventId(7, { version: 7, node: null }),
    openingEventId(7, { version: 7, node: 'a' }),
    nodeEventId(7, 'a'),
  ];
  expect(new Set(ids).size).toBe(ids.length);
});

test.each([
  '',
  'garbage',
  '-1.2',
  '1.a b',
  '1.%E0%A4%A',
  `${2 ** 31}`,
  `${2 ** 31}.x`,
  '1.\u00e9',
  '3~4',
  '3~4.x',
  '3~x',
  '~',
])('%j is not an id of these streams', (id) => {
  expect(parseEventId(id)).toBeUndefined();
});
