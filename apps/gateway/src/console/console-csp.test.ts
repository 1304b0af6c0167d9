import { consoleCsp } from './console-csp';

// The media origins of the console's CSP follow where asset URLs point (packages/storage/src/presign.ts).

const directive = (csp: string, name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `));

test('on AWS S3 (no endpoint) previews may load from any amazonaws.com host', () => {
  const csp = consoleCsp({ ASSET_PUBLIC_BASE_URL: undefined, S3_PUBLIC_ENDPOINT: undefined, S3_ENDPOINT: undefined });
  expect(directive(csp, 'img-src')).toBe("img-src 'self' data: blob: https://*.amazonaws.com");
  expect(directive(csp, 'media-src')).toBe("media-src 'self' blob: https://*.amazonaws.com");
});

test('the public endpoint wins over the one servers use, and only its origin counts', () => {
  const csp = consoleCsp({
    ASSET_PUBLIC_BASE_URL: undefined,
    S3_PUBLIC_ENDPOINT: 'http://localhost:9000/some/prefix',
    S3_ENDPOINT: 'http://minio:9000',
  });
  expect(directive(csp, 'img-src')).toBe("img-src 'self' data: blob: http://localhost:9000");
});

test('a CDN adds its origin to the store, which still serves files presigned with another type', () => {
  const csp = consoleCsp({
    ASSET_PUBLIC_BASE_URL: 'https://cdn.example.com/assets/',
    S3_PUBLIC_ENDPOINT: undefined,
    S3_ENDPOINT: 'https://storage.example.com',
  });
  expect(directive(csp, 'media-src')).toBe(
    "media-src 'self' blob: https://cdn.example.com https://storage.example.com",
  );
});

test('no directive lets inline script or plugins run, and the page cannot be framed', () => {
  const csp = consoleCsp({ ASSET_PUBLIC_BASE_URL: undefined, S3_PUBLIC_ENDPOINT: undefined, S3_ENDPOINT: undefined });
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(directive(csp, 'script-src')).toBe("script-src 'self'");
  expect(directive(csp, 'object-src')).toBe("object-src 'none'");
  expect(directive(csp, 'frame-ancestors')).toBe("frame-ancestors 'none'");
});
