/**
 * Kafka consumer group timing: how long the group coordinator waits for a member that stopped
 * heartbeating before it gives the member's partitions to others, and how often members heartbeat.
 * Kept apart from the kafkajs adapter so the service config (and `runService`, which validates it
 * before connecting) can use it without loading kafkajs.
 */

/**
 * Consumer session timeout unless a service or bus says otherwise: the broker's shortest by
 * default (`group.min.session.timeout.ms`). kafkajs's own default is 30 s: the partitions of a
 * crashed member stood still for half a minute. 6 s gives the partitions of a killed member to a
 * survivor (or to its own restarted process) about 6 s after the kill. The bus heartbeats while a
 * handler call runs too, so a slow call does not have to fit in the session.
 */
export const DEFAULT_SESSION_TIMEOUT_MS = 6_000;
/** Consumer heartbeat interval unless a service or bus says otherwise (a third of the session). */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 2_000;

/**
 * What is wrong with a session and heartbeat pair, or undefined when nothing is: the heartbeat must
 * be above 0 and below the session (Kafka advises at most a third of it, so one lost heartbeat is
 * not fatal). The broker's own bounds (`group.min.session.timeout.ms` and `max`, by default 6 s
 * and 30 min) are the broker's to enforce: a consumer outside them fails to join.
 */
export function consumerTimingProblem(
  sessionTimeoutMs: number,
  heartbeatIntervalMs: number,
): string | undefined {
  if (heartbeatIntervalMs > 0 && heartbeatIntervalMs < sessionTimeoutMs) return undefined;
  return `the heartbeat interval (${heartbeatIntervalMs} ms) must be above 0 and below the session timeout (${sessionTimeoutMs} ms)`;
}
