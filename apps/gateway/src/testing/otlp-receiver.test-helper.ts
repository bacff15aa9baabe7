import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP/JSON attribute value (the protocol's `AnyValue`), read into a plain value. */
type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

export type Attributes = Record<string, string | number | boolean | Array<string | number | boolean>>;

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  startMs: number;
  endMs: number;
  status: { code?: number };
  attributes: Attributes;
  resource: Attributes;
}

export interface ReceivedPoint {
  metric: string;
  unit: string | undefined;
  attributes: Attributes;
  /** A sum's value, or a histogram's sum. */
  value: number;
  /** Histograms only. */
  count: number | undefined;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
  /** Every request body as received (JSON text or protobuf bytes as latin1), for content-marker checks. */
  bodies: Array<{ path: string; contentType: string | undefined; body: Buffer }>;
  close(): Promise<void>;
}

function readValue(value: AnyValue): string | number | boolean | Array<string | number | boolean> {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return (value.arrayValue?.values ?? []).map((item) => readValue(item) as string | number | boolean);
}

function readAttributes(list: KeyValue[] | undefined): Attributes {
  const attributes: Attributes = {};
  for (const { key, value } of list ?? []) attributes[key] = readValue(value);
  return attributes;
}

const nanosToMs = (nanos: string | number): number => Number(BigInt(nanos) / 1_000_000n);

interface TracesBody {
  resourceSpans?: Array<{ resource?: { attributes?: KeyValue[] }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }>;
}
interface MetricsBody {
  resourceMetrics?: Array<{ scopeMetrics?: Array<{ metrics?: Array<Record<string, unknown>> }> }>;
}
type JsonPoint = { attributes?: KeyValue[]; asInt?: string | number; asDouble?: number; sum?: number; count?: string | number };

/**
 * A collector's OTLP/HTTP endpoint on loopback: accepts `/v1/traces` and
 * `/v1/metrics` in either encoding, answers 200, and reads the JSON ones
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) into spans and metric points.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const bodies: OtlpReceiver['bodies'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'];
      bodies.push({ path: request.url ?? '', contentType, body });
      if (contentType?.includes('json') === true) {
        const parsed = JSON.parse(body.toString('utf8')) as TracesBody & MetricsBody;
        if (request.url === '/v1/traces') readSpans(parsed, spans);
        if (request.url === '/v1/metrics') readPoints(parsed, points);
      }
      response.writeHead(200, { 'content-type': contentType ?? 'application/json' });
      response.end(contentType?.includes('json') === true ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    points,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readSpans(body: TracesBody, into: ReceivedSpan[]): void {
  for (const resourceSpans of body.resourceSpans ?? []) {
    const resource = readAttributes(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        into.push({
          name: span.name as string,
          traceId: span.traceId as string,
          spanId: span.spanId as string,
          parentSpanId: (span.parentSpanId as string | undefined) ?? '',
          kind: span.kind as number,
          startMs: nanosToMs(span.startTimeUnixNano as string),
          endMs: nanosToMs(span.endTimeUnixNano as string),
          status: (span.status as { code?: number } | undefined) ?? {},
          attributes: readAttributes(span.attributes as KeyValue[] | undefined),
          resource,
        });
      }
    }
  }
}

function readPoints(body: MetricsBody, into: ReceivedPoint[]): void {
  for (const resourceMetrics of body.resourceMetrics ?? []) {
    for (const scope of resourceMetrics.scopeMetrics ?? []) {
      for (const metric of scope.metrics ?? []) {
        const data = (metric.histogram ?? metric.sum ?? metric.gauge) as { dataPoints?: JsonPoint[] } | undefined;
        for (const point of data?.dataPoints ?? []) {
          into.push({
            metric: metric.name as string,
            unit: metric.unit as string | undefined,
            attributes: readAttributes(point.attributes),
            value: point.sum ?? Number(point.asInt ?? point.asDouble ?? 0),
            count: point.count === undefined ? undefined : Number(point.count),
          });
        }
      }
    }
  }
}
