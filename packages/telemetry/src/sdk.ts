import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import type { Tracing } from './start-tracing';
import type { TracesSampler, TracingSettings } from './tracing-settings';
import { setActiveTracer } from './tracing-state';

// Loaded only when tracing is configured (see start-tracing.ts).

/** Requests that are not work: probes and scrapes would drown the traces that matter. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

function samplerFor(name: TracesSampler, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** @public required on demand by startTracing, through a cast that knip does not follow. */
export function startSdk(settings: TracingSettings): Tracing {
  const Exporter = settings.protocol === 'http/json' ? OtlpJsonExporter : OtlpProtobufExporter;
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    sampler: samplerFor(settings.sampler, settings.samplerRatio),
    spanProcessors: [new BatchSpanProcessor({ exporter: new Exporter({ url: settings.tracesUrl }) })],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!),
        // Outbound calls are traced inside a request or a node execution, never
        // as traces of their own (the asset worker's S3 traffic, background loops).
        requireParentforOutgoingSpans: true,
      }),
    ],
    // Traces only: no metrics (Prometheus has them) and no log export (stdout has them).
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  setActiveTracer(trace.getTracer('weft'));
  return {
    enabled: true,
    async shutdown() {
      setActiveTracer(undefined);
      await sdk.shutdown();
    },
  };
}
