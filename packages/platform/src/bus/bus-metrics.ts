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
