import { attachmentDisposition, sanitizeFilename } from './filename';

describe('sanitizeFilename', () => {
  test.each([
    ['photo.png', 'photo.png'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\report.pdf', 'report.pdf'],
    ['a\r\nSet-Cookie: x=1.txt', 'aSet-Cookie_ x=1.txt'],
    ['evil\u202Egnp.exe', 'evilgnp.exe'],
    ['..', null],
    ['  .hidden  ', 'hidden'],
    ['"quoted" <name>?.md', '_quoted_ _name__.md'],
    ['', null],
    [undefined, null],
  ])('%j → %j', (raw, expected) => {
    expect(sanitizeFilename(raw)).toBe(expected);
  });

  test('long names keep their extension within 255 characters', () => {
    const name = sanitizeFilename(`${'x'.repeat(400)}.jpeg`)!;
    expect(Array.from(name)).toHaveLength(255);
    expect(name.endsWith('.jpeg')).toBe(true);
  });
});

describe('attachmentDisposition', () => {
  test('an ASCII fallback and the exact name in RFC 8187 form', () => {
    expect(attachmentDisposition("Café (1)'s 100%.png")).toBe(
      `attachment; filename="Caf_ (1)'s 100_.png"; filename*=UTF-8''Caf%C3%A9%20%281%29%27s%20100%25.png`,
    );
  });
});
