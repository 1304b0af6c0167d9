import { tracingSettings, type OtelConfig } from './tracing-settings';

const base: OtelConfig = {
  OTEL_SERVICE_NAME: 'weft-gateway',
  OTEL_TRACES_SAMPLER: 'parentbased_always_on',
  OTEL_TRACES_SAMPLER_ARG: 1,
  OTEL_SDK_DISABLED: false,
};

test('off without an endpoint, or when the SDK is disabled', () => {
  expect(tracingSettings(base)).toBeUndefined();
  expect(
    tracingSettings({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: true }),
  ).toBeUndefined();
});

test('the generic endpoint gets /v1/traces; the traces endpoint is used as given and wins', () => {
  expect(tracingSettings({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.tracesUrl).toBe(
    'http://collector:4318/v1/traces',
  );
  expect(
    tracingSettings({
      ...base,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp/spans',
    })?.tracesUrl,
  ).toBe('https://traces.example.com/otlp/spans');
});

test('protobuf unless told otherwise; the traces-specific protocol wins', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  expect(tracingSettings({ ...base, ...endpoint })?.protocol).toBe('http/protobuf');
  expect(tracingSettings({ ...base, ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })?.protocol).toBe(
    'http/json',
  );
  expect(
    tracingSettings({
      ...base,
      ...endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    })?.protocol,
  ).toBe('http/protobuf');
});
