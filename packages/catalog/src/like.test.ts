import { escapeLike } from './like';

describe('escapeLike', () => {
  it('escapes %, _ and the escape character itself', () => {
    expect(escapeLike('100%_off\\now')).toBe('100\\%\\_off\\\\now');
    expect(escapeLike('plain')).toBe('plain');
  });
});
