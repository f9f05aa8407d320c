import { metrics } from '../metrics/registry.js';

/**
 * A record written to `<topic>.dlq` after every attempt failed (or it did not decode):
 * `marquee_dead_letters_total{topic, group}`. Counted once the dead-letter write succeeded.
 */
export function countDeadLetter(topic: string, group: string): void {
  metrics
    .counter('marquee_dead_letters', {
      description: 'Records written to a dead-letter topic, by source topic and consumer group',
    })
    .add(1, { topic, group });
}

/**
 * A record of a signed topic refused for its signature (missing, malformed, wrong, or naming a
 * service that does not produce the topic): `marquee_bus_refused_records_total{topic, group}`.
 * It is dead-lettered too (and counted in `marquee_dead_letters_total`).
 */
export function countRefusedRecord(topic: string, group: string): void {
  metrics
    .counter('marquee_bus_refused_records', {
      description:
        'Records refused for a missing or invalid producer signature, by topic and group',
    })
    .add(1, { topic, group });
}
