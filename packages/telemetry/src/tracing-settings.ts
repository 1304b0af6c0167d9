/** The OTEL_* part of a process's parsed configuration (`otelEnvShape` of @weft/config). */
export interface OtelConfig {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_PROTOCOL?: OtlpProtocol | undefined;
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: OtlpProtocol | undefined;
  OTEL_SERVICE_NAME: string;
  OTEL_TRACES_SAMPLER: TracesSampler;
  OTEL_TRACES_SAMPLER_ARG: number;
  OTEL_SDK_DISABLED: boolean;
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';
/** The standard `OTEL_TRACES_SAMPLER` names (`OTEL_TRACES_SAMPLERS` of @weft/config validates them). */
export type TracesSampler =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP). */
  tracesUrl: string;
  protocol: OtlpProtocol;
  serviceName: string;
  sampler: TracesSampler;
  samplerRatio: number;
}

/** Tracing is on when a collector is configured and the SDK not disabled; undefined means off. */
export function tracingSettings(config: OtelConfig): TracingSettings | undefined {
  if (config.OTEL_SDK_DISABLED) return undefined;
  // The spec: a signal-specific endpoint is used as is; the generic one gets the signal's path.
  const tracesUrl =
    config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (config.OTEL_EXPORTER_OTLP_ENDPOINT
      ? `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`
      : undefined);
  if (!tracesUrl) return undefined;
  return {
    tracesUrl,
    protocol: config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    serviceName: config.OTEL_SERVICE_NAME,
    sampler: config.OTEL_TRACES_SAMPLER,
    samplerRatio: config.OTEL_TRACES_SAMPLER_ARG,
  };
}
