import { ConfigError } from '@weft/config';
import { loadConfig } from './config';

// The two settings without a default; anything that parses as a URL will do here.
const REQUIRED = { DATABASE_URL: 'postgresql://localhost/weft', REDIS_URL: 'redis://localhost:6379' };

describe('gateway configuration', () => {
  it('keeps idle connections 65 s by default: longer than a load balancer does', () => {
    expect(loadConfig(REQUIRED).HTTP_KEEP_ALIVE_TIMEOUT_MS).toBe(65_000);
  });

  it('lets the old generation grow by 60 % before the next full collection by default', () => {
    expect(loadConfig(REQUIRED).GC_HEAP_GROWING_PERCENT).toBe(60);
    expect(loadConfig({ ...REQUIRED, GC_HEAP_GROWING_PERCENT: '0' }).GC_HEAP_GROWING_PERCENT).toBe(0);
    expect(() => loadConfig({ ...REQUIRED, GC_HEAP_GROWING_PERCENT: '-1' })).toThrow(/GC_HEAP_GROWING_PERCENT/);
  });

  it('refuses a keep-alive timeout past what Node lets the next headers take', () => {
    expect(() => loadConfig({ ...REQUIRED, HTTP_KEEP_ALIVE_TIMEOUT_MS: '300000' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...REQUIRED, HTTP_KEEP_ALIVE_TIMEOUT_MS: '300000' })).toThrow(
      /HTTP_KEEP_ALIVE_TIMEOUT_MS/,
    );
  });
});
