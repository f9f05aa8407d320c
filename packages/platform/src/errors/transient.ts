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

export function isTransientError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const candidate = error as {
    name?: unknown;
    errorLabels?: unknown;
    errorLabelSet?: unknown;
    cause?: unknown;
  };
  if (typeof candidate.name === 'string' && TRANSIENT_NAMES.has(candidate.name)) return true;
  const labels =
    candidate.errorLabelSet instanceof Set
      ? [...candidate.errorLabelSet]
      : Array.isArray(candidate.errorLabels)
        ? candidate.errorLabels
        : [];
  if (labels.some((label) => TRANSIENT_LABELS.includes(String(label)))) return true;
  return isTransientError(candidate.cause, depth + 1);
}
