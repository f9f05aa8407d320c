import { randomBytes } from 'node:crypto';
import { waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { startFaultInfra, type FaultInfra } from './fault-infra.js';
import { PublishLoad, sleep } from './publish-load.js';
import { searchSegment, VisibilityWatch } from './visibility.js';

/**
 * A Kafka outage of a minute, four times the ~15 s after which readiness used to fail with the
 * broker (docs/decisions.md, "Readiness is the replica's own state"). Every service runs as its own
 * process against a broker and a FerretDB of this file's own; one app publishes through the edge
 * at a low steady rate. While the broker is stopped, every service's /readyz is read every second
 * and must stay 200, discovery searches through the edge must keep answering 200 from memory, and
 * publications must keep being accepted (into the outbox). Once the broker is back, every accepted
 * publication must show up in discovery: nothing lost.
 */

const KAFKA_DOWN_MS = 60_000;
const RATE_PER_SECOND = 2;
const CATCH_UP_BOUND_MS = 120_000;

describe('a 60 s Kafka outage (own Kafka and FerretDB)', () => {
  const runId = `k${randomBytes(4).toString('hex')}`;
  let infra: FaultInfra | undefined;
  let sut: Stack | undefined;
  let load: PublishLoad | undefined;
  let watch: VisibilityWatch | undefined;
  let apiKey = '';

  beforeAll(async () => {
    infra = await startFaultInfra();
    sut = await startStack({
      kafkaBrokers: infra.kafkaBrokers,
      kafkaSasl: infra.kafkaSasl,
      mongoUrl: infra.mongoUrl,
      dbPrefix: `kout${randomBytes(3).toString('hex')}`,
      serviceEnv: {
        'auth-gateway': { DEFAULT_QUOTA_PER_SECOND: '100000', DEFAULT_QUOTA_PER_DAY: '100000000' },
      },
    });
    const response = await fetch(`${sut.baseUrl}/admin/v1/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kafka outage', redirectUris: ['https://fault.example/cb'] }),
    });
    expect(response.status).toBe(201);
    apiKey = ((await response.json()) as { apiKey: string }).apiKey;
  });

  afterAll(async () => {
    load?.abort();
    try {
      await watch?.stop().catch(() => undefined);
      await sut?.stop();
    } finally {
      await infra?.destroy();
    }
  });

  it('keeps every replica ready, discovery answering and writes accepted; loses nothing', async () => {
    load = new PublishLoad({
      baseUrl: sut!.baseUrl,
      apiKeys: [apiKey],
      ratePerSecond: RATE_PER_SECOND,
      runId,
      clientTimeoutMs: 10_000,
      giveUpMs: 60_000,
    });
    watch = new VisibilityWatch({ baseUrl: sut!.baseUrl, apiKey, publications: load.publications });
    load.start();
    watch.start();
    // Something in discovery before the outage, to search for during it.
    const before = await waitFor(
      () => load!.publications.find((publication) => watch!.seenAt.has(publication.id ?? '')),
      { timeoutMs: 30_000, description: 'a publication visible before the outage' },
    );

    await infra!.run('stop', 'kafka');
    const stoppedAt = Date.now();
    const notReady: string[] = [];
    const searchFailures: string[] = [];
    let probes = 0;
    while (Date.now() - stoppedAt < KAFKA_DOWN_MS) {
      probes += 1;
      for (const service of sut!.services.values()) {
        const status = await fetch(`http://127.0.0.1:${service.httpPort}/readyz`, {
          signal: AbortSignal.timeout(5_000),
        }).then(
          (response) => response.status,
          (error: unknown) => String(error),
        );
        if (status !== 200) notReady.push(`${service.name} ${status}`);
      }
      const found = await searchSegment(sut!.baseUrl, apiKey, before.segment).then(
        (events) => events.some((event) => event.id === before.id),
        (error: unknown) => String(error),
      );
      if (found !== true) searchFailures.push(String(found));
      await sleep(1_000);
    }
    const accepted = load.publications.filter(
      (publication) =>
        publication.acceptedAt !== undefined && publication.acceptedAt > stoppedAt + 15_000,
    ).length;
    await infra!.run('start', 'kafka');
    const backAt = Date.now();
    await load.stop();
    const allSeen = await waitFor(() => watch!.unseen().length === 0, {
      timeoutMs: CATCH_UP_BOUND_MS,
      intervalMs: 250,
    }).then(
      () => Date.now(),
      () => undefined,
    );
    await watch.stop();
    console.log(
      `[kafka outage] ${probes} rounds of probes over ${KAFKA_DOWN_MS / 1000} s; ` +
        `${load.publications.length} publications, ${accepted} accepted after the first 15 s of the outage; ` +
        `everything visible ${allSeen === undefined ? 'never' : `+${((allSeen - backAt) / 1000).toFixed(1)} s`} after the broker was back`,
    );

    expect(notReady, 'readiness failed during the outage').toEqual([]);
    expect(searchFailures, 'discovery failed during the outage').toEqual([]);
    // Writes kept being accepted past the point where readiness used to fail.
    expect(accepted).toBeGreaterThan(0);
    expect(load.publications.filter((publication) => publication.final !== 200)).toEqual([]);
    expect(watch.unseen().map((publication) => publication.token)).toEqual([]);
  });
});
