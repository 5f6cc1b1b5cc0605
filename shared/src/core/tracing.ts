import { context, propagation, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';

/**
 * OpenTelemetry tracing of every process (gateway and services). Off unless `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: then no SDK is loaded, the API below is OpenTelemetry's
 * no-op and nothing is stored or sent. When on, the SDK's instrumentations trace incoming and outgoing HTTP
 * requests with W3C `traceparent` (instrumentation-http; a server span is named by its Express route template,
 * `POST /api/v1/comments`, through instrumentation-express) and every MongoDB command (instrumentation-mongodb);
 * NATS has no official instrumentation, so the project's own spans below cover it: outbox events keep the context
 * of the request that wrote them, the relay puts it in the NATS message headers, and consumers continue it.
 * Spans go out as OTLP/HTTP (JSON).
 */

/** W3C trace context as text fields (`traceparent`, `tracestate`): how it is stored with an outbox event. */
export type TraceCarrier = Record<string, string>;

const TRACER_NAME = '@binzip/shared';
/**
 * Paths probed every few seconds by orchestrators and scrapers, and the revocation feed every process reads every
 * few seconds: tracing them would only bury real traces.
 */
const UNTRACED_PATHS = /^\/(health|ready|metrics|internal\/revocations)(\?|$)/;

/** What the instrumentations patch, down to the driver's files instrumentation-mongodb hooks (mongodb 6.4+). */
const INSTRUMENTED_PACKAGES = ['express', 'mongodb/lib/cmap/connection.js', 'mongodb/lib/cmap/connect.js', 'mongodb/lib/sessions.js'];

/** Loaded already (a process without MongoDB, the gateway, is not made to load the driver). */
function isLoaded(name: string): boolean {
  try {
    return require.resolve(name) in require.cache;
  } catch {
    return false;
  }
}

export interface Tracing {
  enabled: boolean;
  /** Exports what is still buffered, then stops (part of the orderly shutdown). */
  stop(): Promise<void>;
}

/** Sets the route of the active HTTP server span; installed by `startTracing` (nothing to name when tracing is off). */
let setServerRoute: ((route: string) => void) | undefined;

/**
 * Names the active HTTP server span by `route` (`<method> <route>`, attribute `http.route`) for a request no Express
 * route answers: the gateway's proxied requests, by the route prefix that chose their service. Costs nothing when
 * tracing is off.
 */
export function nameServerRoute(route: string): void {
  setServerRoute?.(route);
}

export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && env.OTEL_SDK_DISABLED !== 'true';
}

/**
 * Starts tracing for the process named `service` (its `service.name` unless `OTEL_SERVICE_NAME` says
 * otherwise). Call it first thing in a process's start-up, before any request is served; the SDK packages
 * are loaded only when tracing is on.
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): Tracing {
  if (!tracingEnabled(env)) return { enabled: false, stop: async () => undefined };
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { MongoDBInstrumentation } = require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  const { getRPCMetadata, RPCType } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || service }),
    // The exporter reads the OTEL_EXPORTER_OTLP_* settings itself (endpoint + /v1/traces, headers, timeout).
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // W3C trace context propagation and the AsyncLocalStorage context manager.
  provider.register();
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
        // The gateway's health checks of its upstreams and other background calls start no traces of their own.
        requireParentforOutgoingSpans: true,
      }),
      // Only the route handler gets a span (`request handler`, with `http.route`): the route template still names
      // the server span, and the dozen middlewares every request passes would only bury it.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      // Commands outside any trace (index builds, the outbox relay's polling, health pings) start no trace.
      new MongoDBInstrumentation({ requireParentSpan: true }),
    ],
  });
  // The process's entry module loaded express and the MongoDB driver before this point (through @binzip/shared).
  // The instrumentations patch a module when it is required after they are registered, and what they patch is
  // shared (http's exports, express's Router and application prototypes, the driver's Connection prototype and
  // connect function), so requiring the loaded copies again patches the ones in use. Express apps must be built
  // after this call (routes declared before are not traced); runService and the gateway build theirs after it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  for (const loaded of ['http', 'https', ...INSTRUMENTED_PACKAGES.filter(isLoaded)]) require(loaded);
  // instrumentation-http names the server span by the route its request's RPC metadata holds when it ends.
  setServerRoute = (route) => {
    const metadata = getRPCMetadata(context.active());
    if (metadata?.type === RPCType.HTTP) metadata.route = route;
  };
  return {
    enabled: true,
    stop: async () => {
      setServerRoute = undefined;
      unregister();
      await provider.shutdown();
    },
  };
}

/** The trace and span id of the active span, for log lines; empty when tracing is off or nothing is traced. */
export function currentTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const spanContext = span.spanContext();
  return trace.isSpanContextValid(spanContext) ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : undefined;
}

/** The active trace context as text fields (nothing when tracing is off). */
export function currentTraceCarrier(): TraceCarrier | undefined {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

const tracer = () => trace.getTracer(TRACER_NAME);

/**
 * Runs `work` in a messaging span (`<subject> publish` or `<subject> process`) whose parent is the context
 * carried by `parent` (a stored outbox event's, a message's headers) and nothing else (a relay pass or a
 * consumer loop runs in whatever context started it, which is not the event's), or the active context when
 * there is no carrier; the span is ended and marked as failed when `work` throws.
 */
export async function inMessagingSpan<T>(
  kind: 'publish' | 'process',
  subject: string,
  parent: { get(key: string): string | undefined } | undefined,
  work: (span: Span, active: Context) => Promise<T>,
): Promise<T> {
  const parentContext = parent
    ? propagation.extract(ROOT_CONTEXT, parent, {
        get: (carrier, key) => carrier.get(key) || undefined,
        keys: () => ['traceparent', 'tracestate'],
      })
    : context.active();
  const span = tracer().startSpan(
    `${subject} ${kind}`,
    {
      kind: kind === 'publish' ? SpanKind.PRODUCER : SpanKind.CONSUMER,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.operation.type': kind === 'publish' ? 'send' : 'process' },
    },
    parentContext,
  );
  const active = trace.setSpan(parentContext, span);
  try {
    return await context.with(active, () => work(span, active));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

/** Writes the trace context of `active` into a message's headers (`set` of NATS headers). */
export function injectTraceContext(active: Context, headers: { set(key: string, value: string): void }): void {
  propagation.inject(active, headers, { set: (carrier, key, value) => carrier.set(key, value) });
}
