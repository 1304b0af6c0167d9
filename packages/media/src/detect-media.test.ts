import sharp from 'sharp';
import { extensionOf, MediaMismatchError, resolveMedia, sniffContent } from './detect-media';
import { sniffText } from './sniff-text';

const text = (s: string) => Buffer.from(s, 'utf8');

describe('sniffContent', () => {
  test('binary formats by magic bytes, whatever they are called', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    const webp = await sharp(png).webp().toBuffer();
    expect((await sniffContent(png, true))?.media).toEqual({
      mediaType: 'image',
      extension: 'png',
      contentType: 'image/png',
    });
    expect((await sniffContent(webp, true))?.media.extension).toBe('webp');
    expect((await sniffContent(text('%PDF-1.7\n'), true))?.media).toMatchObject({
      mediaType: 'file',
      extension: 'pdf',
    });
    const mp3Frame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(600)]);
    expect((await sniffContent(mp3Frame, true))?.media).toMatchObject({ mediaType: 'audio', extension: 'mp3' });
    const wav = Buffer.concat([text('RIFF'), Buffer.from([36, 0, 0, 0]), text('WAVEfmt ')]);
    expect((await sniffContent(wav, true))?.media).toMatchObject({ mediaType: 'audio', extension: 'wav' });
  });

  test('formats outside the contract and binary noise are unsupported', async () => {
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    expect(await sniffContent(gif, true)).toBeUndefined();
    expect(await sniffContent(Buffer.from([0, 1, 2, 3, 250, 251, 252]), true)).toBeUndefined();
    expect(await sniffContent(Buffer.alloc(0), true)).toBeUndefined();
  });

  test('SVG behind an XML declaration, comments and a doctype', async () => {
    const svg = text(
      '\uFEFF<?xml version="1.0"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<svg viewBox="0 0 1 1"/>',
    );
    expect((await sniffContent(svg, true))?.media).toEqual({
      mediaType: 'image',
      extension: 'svg',
      contentType: 'image/svg+xml',
    });
  });
});

describe('sniffText', () => {
  test.each([
    ['{"a": 1}', 'json'],
    ['[1, 2]', 'json'],
    ['{not json', 'txt'],
    ['a,b,c\n1,2,3\n"x, y",5,6\n', 'csv'],
    ['a,b\n1,2,3\n', 'txt'],
    ['# Heading\n\ntext', 'md'],
    ['- one\n- two\n', 'md'],
    ['hello\tworld\r\n', 'txt'],
  ])('%j is %s', (content, format) => {
    expect(sniffText(text(content), true)?.format).toBe(format);
  });

  test('an incomplete sample that opens like JSON counts as JSON', () => {
    expect(sniffText(text('{"a": [1, 2'), false)?.format).toBe('json');
  });

  test('a multi-byte character cut by the end of the sample is still text', () => {
    const bytes = text('caf\u00e9 au lait \u00e9');
    expect(sniffText(bytes.subarray(0, bytes.length - 1), false)?.format).toBe('txt');
  });

  test('invalid UTF-8, NUL bytes and blank content are not text', () => {
    expect(sniffText(Buffer.from([0x61, 0xff, 0x62]), true)).toBeUndefined();
    expect(sniffText(text('a\u0000b'), true)).toBeUndefined();
    expect(sniffText(text('  \n\t'), true)).toBeUndefined();
  });

  test('stays fast on long runs of whitespace (no catastrophic backtracking)', () => {
    const started = Date.now();
    sniffText(text(`${' '.repeat(60_000)}x`), true);
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe('resolveMedia', () => {
  const jpg = {
    media: { mediaType: 'image', extension: 'jpg', contentType: 'image/jpeg' },
    accepts: ['jpg', 'jpeg'],
  } as const;
  const txt = {
    media: { mediaType: 'file', extension: 'txt', contentType: 'text/plain; charset=utf-8' },
    accepts: ['txt', 'csv', 'md'],
  } as const;

  test('a name with no or an unknown extension leaves the content decide', () => {
    expect(resolveMedia({ ...jpg, accepts: [...jpg.accepts] }, 'photo').extension).toBe('jpg');
    expect(resolveMedia({ ...jpg, accepts: [...jpg.accepts] }, 'photo.bin').extension).toBe('jpg');
    expect(resolveMedia({ ...jpg, accepts: [...jpg.accepts] }, undefined).extension).toBe('jpg');
  });

  test('an agreeing extension keeps its spelling', () => {
    expect(resolveMedia({ ...jpg, accepts: [...jpg.accepts] }, 'photo.JPEG').extension).toBe('jpeg');
    expect(resolveMedia({ ...txt, accepts: [...txt.accepts] }, 'table.csv')).toMatchObject({
      extension: 'csv',
      contentType: 'text/csv; charset=utf-8',
    });
  });

  test('a contradicting extension is a mismatch', () => {
    expect(() => resolveMedia({ ...jpg, accepts: [...jpg.accepts] }, 'photo.png')).toThrow(MediaMismatchError);
    expect(() => resolveMedia({ ...txt, accepts: [...txt.accepts] }, 'data.json')).toThrow(MediaMismatchError);
  });

  test('extensionOf', () => {
    expect(extensionOf('a.tar.GZ')).toBe('gz');
    expect(extensionOf('noext')).toBe('');
    expect(extensionOf('.hidden')).toBe('hidden');
  });
});
