import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../support/stack.js';
import { startFaultInfra, type FaultInfra } from './fault-infra.js';
import { PublishLoad, sleep, type Publication } from './publish-load.js';
import { searchSegment, VisibilityWatch } from './visibility.js';

/**
 * The reliability claims under faults (docs/reliability.md). Every service runs as its own process
 * (as in e2e) against a Kafka broker and a FerretDB of this tier's own. Four apps publish through
 * the edge at a steady rate, each publication with an Idempotency-Key of its own, asking again with
 * the same key and body after 503, 504 (the edge's 5 s deadline), 409 IDEMPOTENCY_KEY_IN_PROGRESS
 * or their own 10 s timeout. Meanwhile, one after the other: the broker is stopped for 10 s and
 * started, catalog-indexer (discovery's read model) and secure-entry (a consumer group of
 * event-changed) are killed with SIGKILL and started again, and FerretDB is stopped for 6 s and
 * started. Then: every publication was accepted, every accepted one is in discovery exactly once
 * under the id its answer gave and listed once by its app (a retry never made a second event),
 * and no answer was a 500. How long each fault held things up is measured and printed, never
 * asserted.
 *
 * The rate is 10 publications a second (`FAULT_RATE`), four apps, each publication with a key of
 * its own (docs/reliability.md, "Faults under load").
 */

const RATE_PER_SECOND = Number(process.env.FAULT_RATE ?? 10);
const APPS = 4;
const CLIENT_TIMEOUT_MS = 10_000;
const KAFKA_DOWN_MS = 10_000;
/** Long enough that publications in flight meet the edge's 5 s deadline and are asked again. */
const MONGO_DOWN_MS = 6_000;
/** Bounds, not measurements: how long the checks wait for something before calling it lost. */
const CATCH_UP_BOUND_MS = 60_000;
const GIVE_UP_MS = 60_000;
/** No fault starts later than this after the load began: a stack that does not recover fails fast. */
const FAULTS_BUDGET_MS = 240_000;

interface FaultWindow {
  name: string;
  startedAt: number;
  /** When the fault's target answered again (infra.sh start returned, /readyz answered). */
  backAt: number;
  endedAt: number;
  /** For a killed consumer: from the kill until it consumed a record published after the kill. */
  consumedAgainMs?: number;
  note?: string;
}

/** Mutable between phases; read at the end. */
const windows: FaultWindow[] = [];

describe('faults under a steady publishing load (own Kafka and FerretDB)', () => {
  const runId = `f${randomBytes(4).toString('hex')}`;
  const dbPrefix = `fault${randomBytes(3).toString('hex')}`;
  let infra: FaultInfra | undefined;
  let sut: Stack | undefined;
  let admin: Admin | undefined;
  let load: PublishLoad | undefined;
  let watch: VisibilityWatch | undefined;
  const apiKeys: string[] = [];
  let watcherKey = '';

  const newApp = async (name: string) => {
    const response = await fetch(`${sut!.baseUrl}/admin/v1/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sut!.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, redirectUris: ['https://fault.example/cb'] }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { apiKey: string }).apiKey;
  };

  beforeAll(async () => {
    infra = await startFaultInfra();
    // Shorter sessions to compare against (e.g. FAULT_KAFKA_SESSION_TIMEOUT_MS=10000
    // FAULT_KAFKA_HEARTBEAT_INTERVAL_MS=3000): given to the killed consumer.
    const sessionOverride = {
      ...(process.env.FAULT_KAFKA_SESSION_TIMEOUT_MS
        ? { KAFKA_SESSION_TIMEOUT_MS: process.env.FAULT_KAFKA_SESSION_TIMEOUT_MS }
        : {}),
      ...(process.env.FAULT_KAFKA_HEARTBEAT_INTERVAL_MS
        ? { KAFKA_HEARTBEAT_INTERVAL_MS: process.env.FAULT_KAFKA_HEARTBEAT_INTERVAL_MS }
        : {}),
    };
    sut = await startStack({
      kafkaBrokers: infra.kafkaBrokers,
      kafkaSasl: infra.kafkaSasl,
      mongoUrl: infra.mongoUrl,
      dbPrefix,
      serviceEnv: {
        // The load is 10 publications a second from four apps, plus the watcher's lookups: far
        // above an app's default quota (5 a second), which is not what this tier is about.
        'auth-gateway': { DEFAULT_QUOTA_PER_SECOND: '100000', DEFAULT_QUOTA_PER_DAY: '100000000' },
        'secure-entry': sessionOverride,
      },
    });
    for (let n = 0; n < APPS; n += 1) apiKeys.push(await newApp(`fault publisher ${n}`));
    watcherKey = await newApp('fault watcher');
    const kafka = new Kafka({
      clientId: 'fault-tier',
      brokers: [infra.kafkaBrokers],
      logLevel: logLevel.NOTHING,
    });
    admin = kafka.admin();
    await admin.connect();
  });

  afterAll(async () => {
    // Also after a failure or a timeout of the test, whose body may still be running.
    load?.abort();
    try {
      await watch?.stop().catch(() => undefined);
      await admin?.disconnect().catch(() => undefined);
      await sut?.stop();
    } finally {
      await infra?.destroy();
    }
  });

  /** SIGKILL: no shutdown hook runs, no consumer leaves its group, nothing is committed. */
  const kill9 = async (name: string) => {
    const service = sut!.services.get(name)!;
    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGKILL');
    await exited;
  };

  /** Every publication accepted before `at` has been seen in discovery (or the bound passed). */
  const caughtUpWith = async (at: number) =>
    waitFor(
      () =>
        watch!
          .unseen()
          .every(
            (publication) => publication.acceptedAt === undefined || publication.acceptedAt > at,
          ),
      { timeoutMs: CATCH_UP_BOUND_MS, intervalMs: 250 },
    ).then(
      () => true,
      () => false,
    );

  /**
   * One fault: inject it (resolves once its target answers again), let discovery catch up with
   * everything accepted meanwhile, then a few seconds of steady load before the next one.
   */
  let loadStartedAt = 0;
  const skipped: string[] = [];
  const fault = async (
    name: string,
    inject: (window: FaultWindow) => Promise<void>,
  ): Promise<void> => {
    if (Date.now() - loadStartedAt > FAULTS_BUDGET_MS) {
      skipped.push(name);
      return;
    }
    const window: FaultWindow = { name, startedAt: Date.now(), backAt: 0, endedAt: 0 };
    windows.push(window);
    const progress = (what: string) =>
      console.log(
        `[fault tier] +${((Date.now() - window.startedAt) / 1000).toFixed(1)} s ${name}: ${what} (${load!.publications.length} publications, ${watch!.unseen().length} accepted not yet visible)`,
      );
    progress('start');
    await inject(window);
    window.backAt = Date.now();
    progress('target back');
    if (!(await caughtUpWith(window.backAt))) window.note = 'discovery did not catch up in time';
    progress('discovery caught up');
    await sleep(5_000);
    window.endedAt = Date.now();
  };

  it('accepts every publication, shows each once in discovery, makes no second event on a retry and answers no 500', async () => {
    load = new PublishLoad({
      baseUrl: sut!.baseUrl,
      apiKeys,
      ratePerSecond: RATE_PER_SECOND,
      runId,
      clientTimeoutMs: CLIENT_TIMEOUT_MS,
      giveUpMs: GIVE_UP_MS,
    });
    watch = new VisibilityWatch({
      baseUrl: sut!.baseUrl,
      apiKey: watcherKey,
      publications: load.publications,
    });
    load.start();
    watch.start();
    loadStartedAt = Date.now();

    await fault('none (steady load)', async () => {
      await sleep(8_000);
    });

    await fault(`Kafka broker stopped ${KAFKA_DOWN_MS / 1000} s, started`, async () => {
      await infra!.run('stop', 'kafka');
      await sleep(KAFKA_DOWN_MS);
      await infra!.run('start', 'kafka');
    });

    await fault('catalog-indexer kill -9, restarted', async (window) => {
      await kill9('catalog-indexer');
      const killedAt = Date.now();
      await sut!.startService('catalog-indexer');
      // A global reader: a new process reads the topic whole into memory, in a group of its own.
      // Consumed again = discovery shows an event accepted after the kill.
      await waitFor(
        () =>
          load!.publications.some(
            (publication) =>
              publication.acceptedAt !== undefined &&
              publication.dueAt > killedAt &&
              watch!.seenAt.has(publication.id!),
          ),
        { timeoutMs: CATCH_UP_BOUND_MS, intervalMs: 100 },
      ).catch(() => undefined);
      const firstSeen = Math.min(
        ...load!.publications
          .filter(
            (publication) =>
              publication.dueAt > killedAt && watch!.seenAt.has(publication.id ?? ''),
          )
          .map((publication) => watch!.seenAt.get(publication.id!)!),
      );
      if (Number.isFinite(firstSeen)) window.consumedAgainMs = firstSeen - killedAt;
    });

    await fault(
      'secure-entry kill -9, restarted (consumer group of event-changed)',
      async (window) => {
        const groupId = `secure-entry.${dbPrefix}_secure_entry.events`;
        await kill9('secure-entry');
        const killedAt = Date.now();
        // Every record at or past these offsets was written after the kill: only the new member can
        // have consumed it. Consumed again = the group committed past them on every partition.
        const ends = await admin!.fetchTopicOffsets('event-changed');
        const restarted = sut!.startService('secure-entry');
        const consumed = waitFor(
          async () => {
            const [committed] = await admin!.fetchOffsets({ groupId, topics: ['event-changed'] });
            return ends.every(({ partition, high }) => {
              const offset = committed!.partitions.find((p) => p.partition === partition)?.offset;
              return offset !== undefined && BigInt(offset) > BigInt(high);
            });
          },
          { timeoutMs: CATCH_UP_BOUND_MS, intervalMs: 100 },
        ).then(
          () => Date.now() - killedAt,
          () => undefined,
        );
        await restarted;
        window.consumedAgainMs = await consumed;
      },
    );

    await fault(`FerretDB stopped ${MONGO_DOWN_MS / 1000} s, started`, async () => {
      await infra!.run('stop', 'mongo');
      await sleep(MONGO_DOWN_MS);
      await infra!.run('start', 'mongo');
    });

    await load.stop();
    const allSeen = await caughtUpWith(Date.now());
    await watch.stop();

    // ---- what discovery and the publishers' own lists hold ---------------------------------
    const publications = load.publications;
    const byToken = new Map(publications.map((publication) => [publication.token, publication]));
    const tokenOf = (name: string) => name.split(' ').at(-1) ?? '';

    /**
     * A read of the checks, asked again (up to 10 times, 2 s apart) while the stack answers 503 or
     * 504: the checks read what the stack holds, they are not what is under test. The last error
     * is kept for the assertions, after the table is printed.
     */
    const readProblems: string[] = [];
    const read = async <T>(what: string, attempt: () => Promise<T>): Promise<T | undefined> => {
      for (let n = 1; ; n += 1) {
        try {
          return await attempt();
        } catch (error) {
          if (n >= 10) {
            readProblems.push(`${what}: ${(error as Error).message}`);
            return undefined;
          }
          await sleep(2_000);
        }
      }
    };

    /** Token → the event ids discovery finds by the segment words (Discovery v2 keyword). */
    const inDiscovery = new Map<string, Set<string>>();
    for (const segment of new Set(publications.map((publication) => publication.segment))) {
      const found = await read(`discovery search ${segment}`, () =>
        searchSegment(sut!.baseUrl, watcherKey, segment),
      );
      for (const event of found ?? []) {
        const ids = inDiscovery.get(tokenOf(event.name)) ?? new Set();
        ids.add(event.id);
        inDiscovery.set(tokenOf(event.name), ids);
      }
    }

    /** Token → the event ids its app lists (GET /publish/v2/events, every page). */
    const listed = new Map<string, string[]>();
    for (const apiKey of apiKeys) {
      let cursor: string | undefined;
      do {
        const page = await read('GET /publish/v2/events', async () => {
          const response = await fetch(
            `${sut!.baseUrl}/publish/v2/events?apikey=${apiKey}&size=100${cursor ? `&cursor=${cursor}` : ''}`,
            { signal: AbortSignal.timeout(30_000) },
          );
          if (response.status !== 200)
            throw new Error(`${response.status} ${await response.text()}`);
          return (await response.json()) as {
            events: { id: string; event: { names: Record<string, string> } }[];
            nextCursor?: string;
          };
        });
        for (const { id, event } of page?.events ?? []) {
          const token = tokenOf(event.names['en-us'] ?? '');
          listed.set(token, [...(listed.get(token) ?? []), id]);
        }
        cursor = page?.nextCursor;
      } while (cursor);
    }

    // ---- per fault ---------------------------------------------------------------------------
    const windowOf = (publication: Publication) =>
      windows.findLast((window) => publication.dueAt >= window.startedAt) ?? windows[0]!;
    const isAnswer500 = (publication: Publication) =>
      publication.attempts.filter((attempt) => attempt.outcome === 500).length;
    const rows = windows.map((window) => {
      const mine = publications.filter((publication) => windowOf(publication) === window);
      const accepted = mine.filter((publication) => publication.final === 200);
      const visible = accepted.filter(
        (publication) => inDiscovery.get(publication.token)?.has(publication.id!) === true,
      );
      const doubled = mine.filter(
        (publication) =>
          (inDiscovery.get(publication.token)?.size ?? 0) > 1 ||
          (listed.get(publication.token)?.length ?? 0) > 1,
      );
      const failedAnswers = mine.flatMap((publication) =>
        publication.attempts.filter((attempt) => attempt.outcome !== 200),
      );
      const lastFailure = Math.max(window.startedAt, ...failedAnswers.map((attempt) => attempt.at));
      const acceptedBeforeBack = accepted.filter(
        (publication) => publication.acceptedAt! <= window.backAt,
      );
      const lastSeen = Math.max(
        0,
        ...acceptedBeforeBack.map((publication) => watch!.seenAt.get(publication.id!) ?? 0),
      );
      const lags = accepted
        .map((publication) => (watch!.seenAt.get(publication.id!) ?? 0) - publication.acceptedAt!)
        .filter((lag) => lag > 0)
        .sort((a, b) => a - b);
      const seconds = (ms: number) => (ms / 1000).toFixed(1);
      const recovery = [
        window.name.startsWith('none')
          ? undefined
          : `back after ${seconds(window.backAt - window.startedAt)} s`,
        failedAnswers.length > 0
          ? `retried answers until +${seconds(lastFailure - window.startedAt)} s`
          : undefined,
        lastSeen > 0 && !window.name.startsWith('none')
          ? `discovery caught up +${seconds(lastSeen - window.startedAt)} s (${seconds(Math.max(0, lastSeen - window.backAt))} s after it was back)`
          : undefined,
        window.consumedAgainMs !== undefined
          ? `consumed again ${seconds(window.consumedAgainMs)} s after the kill`
          : undefined,
        lags.length > 0
          ? `visible p50 ${seconds(lags[Math.floor(lags.length / 2)]!)} s, max ${seconds(lags.at(-1)!)} s after acceptance`
          : undefined,
        window.note,
      ]
        .filter(Boolean)
        .join('; ');
      const outcomes = new Map<string, number>();
      for (const attempt of failedAnswers) {
        const key = `${attempt.outcome}${attempt.code ? ` ${attempt.code}` : ''}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
      return {
        fault: window.name,
        publications: mine.length,
        accepted: accepted.length,
        visible: visible.length,
        lost: accepted.length - visible.length,
        doubled: doubled.length,
        answers500: mine.reduce((sum, publication) => sum + isAnswer500(publication), 0),
        recovery,
        retriedAnswers: Object.fromEntries(outcomes),
        retriedAfterTimeout: mine.filter((publication) =>
          publication.attempts
            .slice(0, -1)
            .some((attempt) => attempt.outcome === 'timeout' || attempt.outcome === 504),
        ).length,
      };
    });

    console.log(
      [
        '',
        `fault tier: ${publications.length} publications at ${RATE_PER_SECOND}/s from ${APPS} apps`,
        '',
        '| fault | accepted | visible | lost | doubled | 500s | recovery |',
        '| ----- | -------- | ------- | ---- | ------- | ---- | -------- |',
        ...rows.map(
          (row) =>
            `| ${row.fault} | ${row.accepted}/${row.publications} | ${row.visible} | ${row.lost} | ${row.doubled} | ${row.answers500} | ${row.recovery} |`,
        ),
        ...skipped.map((name) => `| ${name} | not injected: the time budget was spent | | | | | |`),
        '',
        JSON.stringify(
          rows.map(({ fault, retriedAnswers, retriedAfterTimeout }) => ({
            fault,
            retriedAnswers,
            retriedAfterTimeout,
          })),
          null,
          1,
        ),
      ].join('\n'),
    );

    // ---- the claims --------------------------------------------------------------------------
    expect(
      skipped,
      'faults not injected: the stack had not recovered within the time budget',
    ).toEqual([]);
    const notAccepted = publications.filter((publication) => publication.final !== 200);
    expect(
      notAccepted.map((publication) => ({
        token: publication.token,
        final: publication.final,
        attempts: publication.attempts.map((attempt) => attempt.outcome),
      })),
      'publications never accepted (a final answer other than 200, or still failing after the bound)',
    ).toEqual([]);
    expect(
      publications.flatMap((publication) =>
        publication.attempts.filter(
          (attempt) =>
            typeof attempt.outcome === 'number' &&
            attempt.outcome >= 500 &&
            attempt.outcome !== 503 &&
            attempt.outcome !== 504,
        ),
      ),
      'answers 500 (or another 5xx than 503/504)',
    ).toEqual([]);
    expect(allSeen, 'every accepted publication visible in discovery within the bound').toBe(true);
    const accepted = publications.filter((publication) => publication.final === 200);
    expect(
      accepted
        .filter((publication) => {
          const ids = inDiscovery.get(publication.token);
          return ids?.size !== 1 || !ids.has(publication.id!);
        })
        .map((publication) => ({
          token: publication.token,
          id: publication.id,
          discovery: [...(inDiscovery.get(publication.token) ?? [])],
        })),
      'accepted publications not in discovery exactly once under their answered id',
    ).toEqual([]);
    expect(
      accepted
        .filter((publication) => {
          const ids = listed.get(publication.token) ?? [];
          return ids.length !== 1 || ids[0] !== publication.id;
        })
        .map((publication) => ({
          token: publication.token,
          id: publication.id,
          listed: listed.get(publication.token),
        })),
      'accepted publications not listed exactly once by their app (a retry made a second event)',
    ).toEqual([]);
    // Nothing else under this run's words: no event without a publication behind it.
    expect(
      [...inDiscovery.keys(), ...listed.keys()].filter((token) => !byToken.has(token)),
    ).toEqual([]);
  });
});
