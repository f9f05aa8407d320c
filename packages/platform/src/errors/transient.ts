/**
 * Failures of shared infrastructure that pass by themselves: the Mongo-wire server or a Kafka
 * broker restarting, a connection reset, a server not elected yet. A caller should retry them
 * (gRPC UNAVAILABLE, HTTP 503 with Retry-After), unlike a bug, which is INTERNAL. Recognised by the
 * drivers' error names and labels, structurally, so this module imports neither driver.
 */
const TRANSIENT_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'PoolClearedError',
  'PoolClearedOnNetworkError',
  'KafkaJSConnectionError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound',
  'KafkaJSConnectionClosedError',
]);
const TRANSIENT_LABELS = ['RetryableWriteError', 'ResetPool', 'TransientTransactionError'];
/**
 * Node's own socket errors. A driver does not always wrap them: the Mongo driver lets a write to a
 * socket the server has just closed reject with Node's "This socket has been ended by the other
 * party" (EPIPE) as it is, seen when FerretDB restarted under load.
 */
const TRANSIENT_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

export function isTransientError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const candidate = error as {
    name?: unknown;
    errorLabels?: unknown;
    errorLabelSet?: unknown;
    cause?: unknown;
    code?: unknown;
  };
  if (typeof candidate.name === 'string' && TRANSIENT_NAMES.has(candidate.name)) return true;
  if (typeof candidate.code === 'string' && TRANSIENT_CODES.has(candidate.code)) return true;
  const labels =
    candidate.errorLabelSet instanceof Set
      ? [...candidate.errorLabelSet]
      : Array.isArray(candidate.errorLabels)
        ? candidate.errorLabels
        : [];
  if (labels.some((label) => TRANSIENT_LABELS.includes(String(label)))) return true;
  return isTransientError(candidate.cause, depth + 1);
}
