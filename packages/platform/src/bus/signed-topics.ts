/**
 * Topics whose records are commands in effect: a record of them makes a consumer issue entry
 * tickets, cancel a partner's order, change bookings, or erase a fan's contact from orders. Their
 * records carry the producer's signature (bus/record-signature.ts) and consumers dead-letter
 * records that lack a valid one.
 *
 * Self-contained (no imports): the AsyncAPI generator loads it with Node's type stripping.
 */
export const SIGNED_TOPIC_PATTERN =
  /^(order-confirmed|order-cancelled|fan-deleted|booking-[a-z0-9-]+|ticket-[a-z0-9-]+)$/;

/** Whether records of the topic (never its `.dlq` twin) must carry a producer signature. */
export function isSignedTopic(topic: string): boolean {
  return SIGNED_TOPIC_PATTERN.test(topic);
}
