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

  it('takes a Redis Cluster instead of REDIS_URL, and makes the prefix its hash tag', () => {
    const config = loadConfig({
      DATABASE_URL: REQUIRED.DATABASE_URL,
      REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-2.internal:7001,[::1]:7002',
    });
    expect(config.REDIS_CLUSTER_NODES).toEqual(['10.0.0.1:7000', 'redis-2.internal:7001', '[::1]:7002']);
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.REDIS_PREFIX).toBe('{weft}');
    expect(loadConfig({ ...REQUIRED, REDIS_CLUSTER_NODES: 'r:7000', REDIS_PREFIX: 'a:{b}' }).REDIS_PREFIX).toBe(
      'a:{b}',
    );
    // On one Redis the prefix is used as given.
    expect(loadConfig(REQUIRED).REDIS_PREFIX).toBe('weft');
  });

  it('says that REDIS_URL or REDIS_CLUSTER_NODES is needed, and which cluster seed is wrong', () => {
    expect(() => loadConfig({ DATABASE_URL: REQUIRED.DATABASE_URL })).toThrow(
      /REDIS_URL: required: set REDIS_URL to a Redis server, or REDIS_CLUSTER_NODES/,
    );
    expect(() => loadConfig({ ...REQUIRED, REDIS_CLUSTER_NODES: 'r:7000,redis://r:7001' })).toThrow(
      /REDIS_CLUSTER_NODES\.1: each entry must be host:port/,
    );
    expect(() => loadConfig({ ...REQUIRED, REDIS_CLUSTER_NODES: 'r:70000' })).toThrow(/REDIS_CLUSTER_NODES\.0/);
  });
});
