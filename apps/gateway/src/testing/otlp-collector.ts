import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as a collector received it, flattened with the service that sent it. */
export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: SpanKindName;
  attributes: Record<string, string | number | boolean>;
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
}

export type SpanKindName = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export interface OtlpCollector {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT should be set to. */
  endpoint: string;
  spans: CollectedSpan[];
  close(): Promise<void>;
}

// The OTLP/HTTP JSON encoding (opentelemetry-proto's ExportTraceServiceRequest
// in proto3 JSON, ids in hex): the fields read here and nothing more.
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
}
interface ExportTraceServiceRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const KINDS: SpanKindName[] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
const STATUS = ['unset', 'ok', 'error'] as const;

function valueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return '';
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/**
 * An OpenTelemetry collector for tests: `POST /v1/traces` in the OTLP/HTTP
 * JSON encoding (the processes under test run with
 * OTEL_EXPORTER_OTLP_PROTOCOL=http/json), answered as the protocol says.
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return res.writeHead(404).end();
      if (!String(req.headers['content-type']).startsWith('application/json')) return res.writeHead(415).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportTraceServiceRequest;
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: KINDS[s.kind ?? 0] ?? 'unspecified',
              attributes: attributesOf(s.attributes),
              status: {
                code: STATUS[s.status?.code ?? 0] ?? 'unset',
                ...(s.status?.message ? { message: s.status.message } : {}),
              },
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
