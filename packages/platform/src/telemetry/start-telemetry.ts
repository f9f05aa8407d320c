import { FastifyOtelInstrumentation } from '@fastify/otel';
import { trace, type Span } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { AlwaysOffSampler, NoopSpanProcessor, ParentBasedSampler } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { maskSecretQueryParams, SECRET_QUERY_PARAMS } from '../http/mask-secrets.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface StartTelemetryOptions {
  serviceName: string;
  serviceVersion?: string;
  /** Replaces {@link defaultInstrumentations} (tests, or a service that needs a different set). */
  instrumentations?: Instrumentation[];
  /** Where the `OTEL_*` variables are read from; `process.env` by default. */
  env?: Env;
}

export interface ExportersRequested {
  traces: boolean;
  metrics: boolean;
  logs: boolean;
}

/**
 * Query parameters whose values never reach a span attribute (`url.query` of server spans,
 * `url.full` of client spans): the platform's list of credentials in URLs, which log masking uses
 * too, and the instrumentation's own list (cloud signatures), kept because the option replaces it.
 */
const REDACTED_QUERY_PARAMS = [
  ...SECRET_QUERY_PARAMS,
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Goog-Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
];

const PROBE_PATHS = new Set(['/healthz', '/readyz']);

function isProbe(url: string | undefined): boolean {
  return url !== undefined && PROBE_PATHS.has(url.split('?', 1)[0] ?? '');
}

/** What `@fastify/otel` hands its request hook: the span and the fastify request. */
interface FastifyRequestLike {
  method: string;
  url: string;
  ip?: string;
  headers: Record<string, string | string[] | undefined>;
  routeOptions?: { url?: string | undefined };
  raw?: { httpVersion?: string };
}

/**
 * Names a request's SERVER span after its method and route template (`POST /oauth/token`, the HTTP
 * convention's name; the plugin's own is `request`) and gives it the URL's path. `@fastify/otel`
 * records `url.path` from `request.url`, query string included: the path alone is kept, so that an
 * `?apikey=` never ends up in a span attribute, and the query, masked, only as `url.query`. A span
 * that is not recorded ignores names and attributes, so nothing is computed for it.
 */
function fastifyRequestHook(span: Span, request: FastifyRequestLike): void {
  if (!span.isRecording()) return;
  const route = request.routeOptions?.url;
  span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
  const masked = maskSecretQueryParams(request.url);
  const mark = masked.indexOf('?');
  span.setAttribute('url.path', mark < 0 ? masked : masked.slice(0, mark));
  if (mark >= 0) span.setAttribute('url.query', masked.slice(mark + 1));
  const agent = request.headers['user-agent'];
  if (typeof agent === 'string') span.setAttribute('user_agent.original', agent);
  if (request.ip !== undefined) span.setAttribute('client.address', request.ip);
  const version = request.raw?.httpVersion;
  if (version !== undefined) span.setAttribute('network.protocol.version', version);
}

/**
 * HTTP, fastify, gRPC, the MongoDB driver and pino.
 *
 * Not kafkajs: the event bus creates its own `<topic> publish` / `<topic> process` spans and carries
 * `traceparent` in the CloudEvents headers itself, because the consumer span must be opened around
 * the handler *and its retries* and linked to the producer as the architecture describes. The
 * kafkajs instrumentation would add a second, differently-shaped pair of spans per record and inject
 * its own headers, so it stays out.
 *
 * An incoming HTTP request's SERVER span is `@fastify/otel`'s (`GET /partners/v1/events/:event_id`,
 * see {@link fastifyRequestHook}), with one child span for the route's handler and none for each
 * lifecycle hook; the HTTP instrumentation traces outgoing `node:http` calls only. Every HTTP
 * server of the platform is fastify. The HTTP instrumentation's server side binds the request's and
 * the response's event emitters to the request's context, wrapping each of their listeners, for as
 * long as the request lasts, and a span per lifecycle hook is a span and a context switch per hook
 * for every request, sampled or not. `bench/tracing` (a fastify route of the platform's factory,
 * unsampled requests, medians of three runs on a quiet host): with both, 126 µs of the server's CPU
 * a request and 14.5 KiB of heap per held request; with neither, 81 µs and 8.1 KiB; a route with
 * `config: { otel: false }` 54 µs and 6.4 KiB, as without the SDK (docs/performance.md, "Tracing's
 * share of a request"). `@fastify/otel` starts its span at `onRequest`, after the router: a path no
 * route matches gets the not-found handler's span, the router's own errors (a URL that does not
 * decode) none. Hooks that call other services show as those calls' client spans.
 *
 * fastify uses `@fastify/otel`, which `@opentelemetry/instrumentation-fastify` is deprecated in
 * favour of. It attaches through the `fastify.initialization` diagnostics channel, so it needs no
 * module hook and works in ESM and in tests alike. A route with `config: { otel: false }` gets no
 * spans at all (the waiting room's long poll: a span of "waited 25 s" says nothing its request
 * duration does not, and costs memory for the wait).
 */
export function defaultInstrumentations(requested: ExportersRequested): Instrumentation[] {
  return [
    new HttpInstrumentation({
      disableIncomingRequestInstrumentation: true,
      redactedQueryParams: REDACTED_QUERY_PARAMS,
    }),
    new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      // The request's span and its handler's; none for each lifecycle hook (see above).
      instrumentHooks: false,
      // Probes arrive every few seconds and would drown the traces that matter.
      ignorePaths: (route) => isProbe(route.url),
      requestHook: fastifyRequestHook,
    }) as unknown as Instrumentation,
    new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    // The MongoDB driver, where every command goes: one CLIENT span per command (`find cart.carts`),
    // inside the span that issued it (none without one). mongoose's own instrumentation saw only
    // model calls, which the platform's store does not make (it uses the driver's collections).
    // The statement keeps the command's shape with every value replaced by `?`: filters may carry
    // token hashes or personal data. See `mongoStatement` for when it is computed.
    new MongoDBInstrumentation({
      requireParentSpan: true,
      enhancedDatabaseReporting: false,
      dbStatementSerializer: mongoStatement,
    }),
    new PinoInstrumentation({
      // The platform logger adds trace_id/span_id itself (see logger/create-logger.ts); injecting
      // them here too would write every key twice.
      disableLogCorrelation: true,
      // Logs go to stdout for the platform's collector; only ship them over OTLP when asked to.
      disableLogSending: !requested.logs,
    }),
  ];
}

/**
 * The `db.query.text` of a MongoDB command span: the command's shape with every value replaced by
 * `?` (what the instrumentation's own serializer writes), computed only when the span that issues
 * the command is recorded. The instrumentation builds a span's attributes before the sampler
 * decides, so it would otherwise walk every command's documents (a whole cart on each write) for
 * spans that are then dropped: about 3 % of cart's CPU on the reserve path when nothing is
 * exported, and of every unsampled request when traces are. The samplers a service uses
 * (parent-based, or a trace-id ratio, which decides a child as it decided its parent) record a
 * command's span exactly when they record its parent's.
 */
export function mongoStatement(command: Record<string, unknown>): string {
  if (!trace.getActiveSpan()?.isRecording()) return '';
  const seen = new WeakSet<object>();
  return JSON.stringify(command, (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null) return '?';
    if (seen.has(value)) return '[Circular]';
    seen.add(value);
    return value;
  });
}

function listFrom(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function signalRequested(env: Env, exporterVariable: string, endpointVariable: string): boolean {
  const exporters = listFrom(env, exporterVariable);
  if (exporters.length > 0) return !(exporters.length === 1 && exporters[0] === 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env[endpointVariable]);
}

/**
 * Which signals the standard variables ask to export. The SDK alone would default every signal to
 * OTLP on localhost:4318; the embedded default and tests must export nothing (docs/decisions.md), so a
 * signal is exported only when its `OTEL_*_EXPORTER` names an exporter or an OTLP endpoint is set.
 */
export function exportersRequested(env: Env = process.env): ExportersRequested {
  return {
    traces: signalRequested(env, 'OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'),
    metrics: signalRequested(env, 'OTEL_METRICS_EXPORTER', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'),
    logs: signalRequested(env, 'OTEL_LOGS_EXPORTER', 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'),
  };
}

let active: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry NodeSDK. Call it before the modules it instruments are imported; in a
 * service that is done by `node --import @marquee/platform/telemetry/register`, not by `main.ts`.
 *
 * With no trace exporter asked for, spans are not recorded unless the caller's context says its
 * trace is sampled (`ParentBased` over `AlwaysOff`): they still carry ids, so log lines have a
 * `trace_id` and trace context flows to the next hop, but no attributes are computed for spans that
 * would be dropped (about 15 % of a service's CPU on the reserve path, bench cart-reserve). A caller
 * whose trace is sampled (a service that exports) keeps its trace going through this one. The
 * standard `OTEL_TRACES_SAMPLER` chooses the sampler whenever traces are exported.
 * `OTEL_SDK_DISABLED=true` turns the whole SDK off (the SDK checks it itself).
 */
export function startTelemetry(options: StartTelemetryOptions): NodeSDK {
  if (active !== undefined) return active;
  const env = options.env ?? process.env;
  const requested = exportersRequested(env);
  const resource =
    options.serviceVersion === undefined
      ? undefined
      : defaultResource().merge(
          resourceFromAttributes({ [ATTR_SERVICE_VERSION]: options.serviceVersion }),
        );

  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    ...(resource === undefined ? {} : { resource }),
    instrumentations: options.instrumentations ?? defaultInstrumentations(requested),
    textMapPropagator: new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
    // `undefined` lets the SDK build exporters from the OTEL_* variables.
    ...(requested.traces
      ? {}
      : {
          spanProcessors: [new NoopSpanProcessor()],
          sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }),
        }),
    ...(requested.metrics ? {} : { metricReaders: [] }),
    ...(requested.logs ? {} : { logRecordProcessors: [] }),
  });
  sdk.start();
  active = sdk;
  return sdk;
}

/** The SDK started in this process, if any (by `telemetry/register` or `startTelemetry`). */
export function activeTelemetry(): NodeSDK | undefined {
  return active;
}

/**
 * Flushes and stops the active SDK; a no-op when none was started. `main.ts` registers it as the
 * first lifecycle stop step so that it runs last and exports the spans of the shutdown itself.
 */
export async function shutdownTelemetry(): Promise<void> {
  const sdk = active;
  active = undefined;
  await sdk?.shutdown();
}
