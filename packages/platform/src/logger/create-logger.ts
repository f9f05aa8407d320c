import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { currentCorrelationId } from './correlation.js';

/** The logger type every platform factory accepts. */
export type Logger = PinoLogger;

export interface CreateLoggerOptions {
  service: string;
  /** pino level name; `silent` for tests. Default `info`. */
  level?: string;
  /** Where lines go; stdout (fd 1) by default. Tests pass a stream to read them back. */
  destination?: DestinationStream;
  /** More redact paths on top of {@link REDACTED_PATHS}. */
  redact?: readonly string[];
}

/**
 * Paths whose values are replaced by `[REDACTED]`. pino redaction is by path, so the list covers the
 * shapes secrets take in this code base: HTTP headers, gRPC metadata, OAuth bodies at the top level
 * and one or two levels down (`{ body: { client_secret } }`, `{ req: { body: { password } } }`).
 */
const SECRET_KEYS = [
  'password',
  'client_secret',
  'clientSecret',
  'token',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'apikey',
  'apiKey',
  'api_key',
  'secret',
  'authorization',
  'cookie',
  'code_verifier',
  'order_token',
  'orderToken',
  'redemption_token',
  'redemptionToken',
  // commerce's presale password, as the `displayId` query parameter or body field
  'displayId',
  'passwords',
];

/** Keys that are not identifiers, written in bracket notation for pino's paths. */
const SECRET_BRACKET_KEYS = ['["api-key"]', '["x-api-key"]'];

export const REDACTED_PATHS: readonly string[] = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  ...SECRET_KEYS.map((key) => `*.*.${key}`),
  ...SECRET_BRACKET_KEYS.flatMap((key) => [key, `*${key}`, `*.*${key}`]),
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'req.headers["set-cookie"]',
  'res.headers["set-cookie"]',
  'headers["x-api-key"]',
  'metadata["x-api-key"]',
];

/**
 * A JSON pino logger for one service. Every line carries `trace_id`/`span_id` of the active span
 * (so logs join traces) and `correlation_id` of the work in progress.
 *
 * The ids come from a mixin reading `@opentelemetry/api` rather than from the pino instrumentation's
 * injection, so they are present whether or not the module was loaded through the ESM hook (tests,
 * tools), and never twice.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Label instead of number: what log pipelines and humans filter on.
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED_PATHS, ...(options.redact ?? [])], censor: '[REDACTED]' },
      mixin() {
        const fields: Record<string, string> = {};
        const spanContext = trace.getActiveSpan()?.spanContext();
        if (spanContext && isSpanContextValid(spanContext)) {
          fields.trace_id = spanContext.traceId;
          fields.span_id = spanContext.spanId;
        }
        const correlationId = currentCorrelationId();
        if (correlationId !== undefined) fields.correlation_id = correlationId;
        return fields;
      },
    },
    // Synchronous stdout: a crash or `process.exit` right after a fatal line must not lose it, and
    // the volume of a service's logs does not need the asynchronous buffer.
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
