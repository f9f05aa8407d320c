import { randomBytes } from 'node:crypto';
import {
  createKafkaBus,
  type BusLogger,
  type KafkaBus,
  type TopicDef,
} from '@marquee/platform/bus';
import { waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultInfra, type FaultInfra } from './fault-infra.js';
import { sleep } from './publish-load.js';

/**
 * A global subscription (a read model each replica holds whole, as catalog-indexer's) across a
 * broker outage longer than kafkajs's retries, so that its consumer crashes. The bus must start a
 * fresh consumer in a fresh group that resumes where the crashed one stopped: every record handled
 * exactly once (kafkajs's own restart would read the topic again from its first offset, since a
 * global subscription commits nothing) and consumption going again soon after the broker is back
 * (printed, not asserted; the same restart would wait for the crashed member's session to end).
 */

/** Longer than kafkajs's eight retries (about 12 s with waits capped at 2 s): the consumer crashes. */
const KAFKA_DOWN_MS = 15_000;
const BEFORE = 50;
const AFTER = 50;

const codec = {
  encode: (value: { n: number }) => new TextEncoder().encode(JSON.stringify(value)),
  decode: (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as { n: number },
};

describe('a global subscription across a broker restart (own Kafka)', () => {
  const topic: TopicDef<{ n: number }> = {
    name: `fault-global-${randomBytes(4).toString('hex')}`,
    type: 'marquee.test.Probe',
    keyDescription: 'record number',
    compacted: false,
    retentionMs: 3_600_000,
    producer: 'fault-tier',
    codec,
  };
  let infra: FaultInfra | undefined;
  let publisher: KafkaBus | undefined;
  let reader: KafkaBus | undefined;
  const warnings: string[] = [];
  const quiet = () => undefined;
  const logger: BusLogger = {
    debug: quiet,
    info: quiet,
    warn: (_fields, message) => warnings.push(message ?? ''),
    error: quiet,
  };

  beforeAll(async () => {
    infra = await startFaultInfra('kafka');
    const brokers = [infra.kafkaBrokers];
    publisher = createKafkaBus({ clientId: 'fault-publisher', source: '//fault', brokers, logger });
    reader = createKafkaBus({ clientId: 'fault-reader', source: '//fault', brokers, logger });
    await publisher.ensureTopics([topic]);
  });

  afterAll(async () => {
    await reader?.close().catch(() => undefined);
    await publisher?.close().catch(() => undefined);
    await infra?.destroy();
  });

  const publish = async (from: number, to: number) => {
    for (let n = from; n <= to; n++) {
      // The producer may still be finding the restarted broker: ask again until it is taken.
      await waitFor(
        () =>
          publisher!.publish(topic, [{ key: `r-${n}`, value: { n } }]).then(
            () => true,
            () => false,
          ),
        { timeoutMs: 60_000, intervalMs: 200, description: `publishing record ${n}` },
      );
    }
  };

  it('resumes in a fresh group where it stopped: each record handled once', async () => {
    const handled = new Map<number, number>();
    const handledAt = new Map<number, number>();
    const subscription = await reader!.subscribeGlobal(
      topic,
      { name: 'fault-tier.global' },
      async (event) => {
        const n = event.value!.n;
        handled.set(n, (handled.get(n) ?? 0) + 1);
        if (!handledAt.has(n)) handledAt.set(n, Date.now());
      },
    );
    await reader!.start();
    await subscription.whenCaughtUp();
    await publish(1, BEFORE);
    await waitFor(() => handled.size === BEFORE, {
      timeoutMs: 30_000,
      description: 'the records published before the outage handled',
    });

    await infra!.run('stop', 'kafka');
    await sleep(KAFKA_DOWN_MS);
    await infra!.run('start', 'kafka');
    const backAt = Date.now();
    await publish(BEFORE + 1, BEFORE + AFTER);
    await waitFor(() => handled.size === BEFORE + AFTER, {
      timeoutMs: 60_000,
      intervalMs: 100,
      description: 'the records published after the outage handled',
    });
    // Anything read twice would have come by now with the records after it.
    await sleep(2_000);

    const firstAfter = Math.min(...[...handledAt].filter(([n]) => n > BEFORE).map(([, at]) => at));
    console.log(
      `[fault tier] global subscription: first record after the broker restart handled ${((firstAfter - backAt) / 1000).toFixed(1)} s after the broker was back`,
    );
    const twice = [...handled].filter(([, count]) => count > 1).map(([n]) => n);
    expect(twice, 'records handled more than once').toEqual([]);
    expect([...handled.keys()].sort((a, b) => a - b)).toEqual(
      Array.from({ length: BEFORE + AFTER }, (_, i) => i + 1),
    );
    expect(
      warnings.filter((message) =>
        message.startsWith('global subscription starts a fresh consumer'),
      ),
      'the outage must crash the consumer, or this test proves nothing',
    ).not.toHaveLength(0);
  });
});
