/**
 * A small OTLP/HTTP trace receiver (JSON encoding, `POST /v1/traces`), the collector the tracing test and
 * `bench:site --spans` point the processes' exporters at: it keeps every span with the `service.name` of its
 * resource, its timing in microseconds and its attributes as plain values.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startUs: number;
  endUs: number;
  attributes: Record<string, string | number | boolean | undefined>;
}

export const SERVER_SPAN = 2;

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };

interface OtlpJson {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: Array<{ key: string; value: OtlpValue }>;
      }>;
    }>;
  }>;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT should be. */
  url: string;
  spans: ReceivedSpan[];
  /** The content types the exporters sent. */
  contentTypes: Set<string>;
  close(): Promise<void>;
}

const microseconds = (nanos: string): number => Number(BigInt(nanos) / 1000n);

export function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.add(String(req.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpJson;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const { attributes = [], startTimeUnixNano, endTimeUnixNano, ...span } of scope.spans ?? []) {
            const values = Object.fromEntries(attributes.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue]));
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              startUs: microseconds(startTimeUnixNano),
              endUs: microseconds(endTimeUnixNano),
              attributes: values,
            });
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        spans,
        contentTypes,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}
