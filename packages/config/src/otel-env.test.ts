import { z } from 'zod';
import { ConfigError, otelEnvShape, parseEnv } from './index';

const OtelEnv = z.object(otelEnvShape('weft-test'));

test('unset, tracing settings take their defaults (and no endpoint: tracing off)', () => {
  expect(parseEnv(OtelEnv, {})).toEqual({
    OTEL_SERVICE_NAME: 'weft-test',
    OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    OTEL_TRACES_SAMPLER_ARG: 1,
    OTEL_SDK_DISABLED: false,
  });
});

test('an invalid value stops start-up with the variable named', () => {
  for (const [name, value] of [
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['OTEL_TRACES_SAMPLER', 'sometimes'],
    ['OTEL_TRACES_SAMPLER_ARG', '2'],
  ] as const) {
    expect(() => parseEnv(OtelEnv, { [name]: value })).toThrow(ConfigError);
    expect(() => parseEnv(OtelEnv, { [name]: value })).toThrow(name);
  }
});
