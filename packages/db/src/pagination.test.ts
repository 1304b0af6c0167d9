import { ValidationError } from '@weft/errors';
import { afterPositionSql, decodeCursor, encodeCursor, toPage, type KeysetPosition } from './pagination';

const pos = (ms: number, id: string): KeysetPosition => ({ createdAt: new Date(ms), id });
const ID = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('cursor encoding', () => {
  it('round-trips a position exactly, to the millisecond', () => {
    const p = pos(Date.UTC(2026, 10, 21, 10, 13, 44, 7), ID);
    const cursor = encodeCursor(p);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(p);
  });

  it('answers undefined without a cursor', () => {
    expect(decodeCursor(undefined)).toBeUndefined();
  });

  const malformed = [
    '',
    'abc',
    'not base64!',
    Buffer.from('2026-11-21T10:13:44.007Z|not-a-uuid').toString('base64url'),
    Buffer.from(`2026-13-41T10:13:44.007Z|${ID}`).toString('base64url'),
    Buffer.from(`yesterday|${ID}`).toString('base64url'),
    Buffer.from(`2026-11-21T10:13:44.007Z|${ID}|x`).toString('base64url'),
    'x'.repeat(300),
  ];
  it.each(malformed)('rejects %j with a 422 at query.cursor', (cursor) => {
    try {
      decodeCursor(cursor);
      throw new Error('expected a throw');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues).toEqual([
        expect.objectContaining({ loc: ['query', 'cursor'], type: 'value_error', input: cursor }),
      ]);
    }
  });
});

describe('toPage', () => {
  const rows = [pos(5, ID), pos(4, ID), pos(3, ID)];
  it('uses the extra row only to tell that there is more', () => {
    const page = toPage(rows, 2, (r) => r.createdAt.getTime());
    expect(page.data).toEqual([5, 4]);
    expect(page.has_more).toBe(true);
    expect(decodeCursor(page.next_cursor!)).toEqual(rows[1]);
  });

  it('has no next cursor on the last page', () => {
    expect(toPage(rows, 3, (r) => r.id)).toEqual({ data: [ID, ID, ID], has_more: false, next_cursor: null });
    expect(toPage([], 3, (r) => r)).toEqual({ data: [], has_more: false, next_cursor: null });
  });
});

describe('keyset conditions', () => {
  it('selects rows strictly after the position, ties broken by id', () => {
    const p = pos(1000, ID);
    expect(afterPositionSql(p, 3, 'a')).toEqual({
      sql: '(a.created_at, a.id) < ($3::timestamptz, $4::uuid)',
      params: [p.createdAt, ID],
    });
    expect(afterPositionSql(undefined, 3)).toEqual({ sql: 'TRUE', params: [] });
  });
});
