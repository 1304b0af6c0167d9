import { eventId, parseEventId, START } from './event-ids';

// An event's id carries the client's cursor through Last-Event-ID: it must come back exactly,
// whatever a node id holds, and stay one line of text.

test.each(['topic', 'a.b.c', 'with space', 'line\nbreak', '100%', 'émoji 🎉', '1.2.3'])(
  'the cursor of node %j comes back from its id, on one line',
  (node) => {
    const cursor = { records: 12, version: 345, node };
    const id = eventId(cursor);
    expect(id).not.toMatch(/[\r\n\0]/);
    expect(parseEventId(id)).toEqual(cursor);
  },
);

test('the start has an id too', () => {
  expect(parseEventId(eventId(START))).toEqual(START);
});

test.each(['', 'garbage', '1.2', '1..topic', '-1.2.x', '1.2.a b', '1.2.%E0%A4%A', `1.${2 ** 31}.x`, '1.2.\u00e9'])(
  '%j is not an id of these streams',
  (id) => {
    expect(parseEventId(id)).toBeUndefined();
  },
);
