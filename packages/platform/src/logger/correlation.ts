import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The correlation id of the work in progress (an HTTP request, a gRPC call, a consumed event).
 * It is independent of tracing: it is what a partner or a support ticket quotes (`X-Correlation-Id`,
 * which 3p-connector also sends on every call to a partner), and it survives where a trace is not sampled.
 */
const storage = new AsyncLocalStorage<string>();

/** HTTP header and gRPC metadata key (lower case, as both normalise it). */
export const CORRELATION_ID_HEADER = 'x-correlation-id';

export function runWithCorrelationId<T>(id: string, fn: () => T): T {
  return storage.run(id, fn);
}

export function currentCorrelationId(): string | undefined {
  return storage.getStore();
}

export function newCorrelationId(): string {
  return randomUUID();
}

// Visible ASCII, inner spaces allowed, at most 128 characters: it is echoed in headers and written
// to logs, so control characters (header/log injection) and unbounded sizes are refused.
const VALID = /^[!-~](?:[ -~]{0,126}[!-~])?$/;

export function isValidCorrelationId(value: unknown): value is string {
  return typeof value === 'string' && VALID.test(value);
}
