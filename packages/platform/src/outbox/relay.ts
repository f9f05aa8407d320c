/**
 * The outbox relay: moves events recorded in documents' `outbox` arrays to the bus, at least once,
 * without multi-document transactions (docs/decisions.md, Outbox without transactions).
 *
 * Guarantees and how they are kept:
 * - Never lost: an event leaves its document only when `ackOutbox` runs, and that only after the
 *   publish resolved (the broker has it). A crash anywhere before the ack leaves it in place.
 * - At least once, not exactly once: a crash between publish and ack re-publishes on the next run
 *   with the same CloudEvents id; consumers dedupe on `ce_id` (or on a version).
 * - Order per document: a document's events are published in write order, in one call per topic,
 *   and a document is not touched again until that call and the ack are done. Events of one key
 *   written by different documents carry no order guarantee.
 * - One relay per source at a time: a lease (`acquireOutboxLease`) so that two replicas of a
 *   service never interleave re-publishes (an older state landing last on a compacted topic).
 * - Failures back off per document (`deferOutbox`, doubling, with jitter) so one poisoned document
 *   or topic does not hold up the rest; the documents keep their events meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isTransientError } from '../errors/transient.js';
import type { Logger } from '../logger/index.js';
import { CORRELATION_ID_HEADER } from '../logger/index.js';
import { metrics } from '../metrics/registry.js';
import type {
  OutboxEvent,
  OutboxSource,
  PendingOutbox,
  RawOutgoingEvent,
  RawPublisher,
} from './types.js';

export interface OutboxRelayOptions {
  sources: readonly OutboxSource[];
  /** Publishes encoded bytes unchanged; wire to the bus's raw publish. */
  publish: RawPublisher;
  logger: Logger;
  /** How often to look for events written by other processes (local writes nudge the relay). Default 1000. */
  pollIntervalMs?: number;
  /** Documents read per source per pass. Default 100. */
  batchSize?: number;
  /** Lease duration; another replica takes over this long after a crash. Default 30 000. */
  leaseMs?: number;
  /** First retry delay after a failure; doubles per attempt up to `retryMaxMs`. Default 500. */
  retryMinMs?: number;
  /** Default 60 000. */
  retryMaxMs?: number;
  /**
   * Longest wait between passes while the bus itself is unreachable (a publish failed with a
   * transient error: broker down, connection lost). Default 5 000: events written meanwhile go out
   * at most this long after the broker is back, or about a second after it when the publisher has
   * a `ready` probe. `retryMinMs` is the first wait.
   */
  outageRetryMaxMs?: number;
  /** Lease owner id; default `<hostname>:<pid>:<random>`. */
  owner?: string;
}

export interface OutboxRelay {
  /** Starts polling (idempotent). */
  start(): void;
  /** Stops polling, lets the batch in flight finish publishing and acking, releases the leases. */
  stop(): Promise<void>;
  /** Relay now rather than at the next poll (called by the sources after local writes). */
  notify(): void;
  /**
   * One pass over every source now, serialised with the polling loop; resolves with the number of
   * events published. For tests and tools: it works without `start()`.
   */
  relayOnce(): Promise<number>;
}

interface PassResult {
  published: number;
  /** A full batch relayed without failures: more may be waiting, go again without sleeping. */
  more: boolean;
  /** A publish failed because the bus is unreachable: wait before the next pass. */
  outage: boolean;
}

export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const pollIntervalMs = positive('pollIntervalMs', options.pollIntervalMs ?? 1_000);
  const batchSize = positive('batchSize', options.batchSize ?? 100);
  const leaseMs = positive('leaseMs', options.leaseMs ?? 30_000);
  const retryMinMs = positive('retryMinMs', options.retryMinMs ?? 500);
  const retryMaxMs = Math.max(retryMinMs, positive('retryMaxMs', options.retryMaxMs ?? 60_000));
  const outageRetryMaxMs = Math.max(
    retryMinMs,
    positive('outageRetryMaxMs', options.outageRetryMaxMs ?? 5_000),
  );
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const { sources, publish } = options;
  const log = options.logger.child({ component: 'outbox-relay' });
  const service = serviceOf(options.logger);
  const publishedEvents = metrics.counter('marquee_outbox_published_events', {
    description: 'Outbox events published to the bus (and then acknowledged or re-published)',
  });
  // What each source's last pass left pending, for the backlog gauges: the events of the documents
  // it read (at most batchSize, due ones: deferred documents are not read) that are not published
  // yet, and the write time of the oldest. Absent while another replica holds the source's lease.
  const pendingOf = new Map<OutboxSource, { events: number; oldest: number | undefined }>();
  let stopGauges: (() => void)[] = [];

  // Failed attempts per document, for the backoff; forgotten on success.
  const attempts = new Map<string, number>();
  const leased = new Set<OutboxSource>();
  // Until when each held lease runs, as of its last renewal: a pass renews it only once a third
  // of it has gone by, not on every pass (a write each, which a busy store feels).
  const leaseUntilOf = new Map<OutboxSource, number>();
  // Sources written to since their last pass: a nudge relays only these; the poll relays all.
  const dirty = new Set<OutboxSource>();
  const unsubscribes: (() => void)[] = [];
  let running = false;
  let loop: Promise<void> | undefined;
  let nudged = false;
  let wake: (() => void) | undefined;
  let chain: Promise<unknown> = Promise.resolve();

  const serial = <R>(work: () => Promise<R>): Promise<R> => {
    const run = chain.then(work, work);
    chain = run.catch(() => undefined);
    return run;
  };

  const backoff = (attempt: number, maxMs = retryMaxMs): number => {
    const ceiling = Math.min(maxMs, retryMinMs * 2 ** Math.min(attempt - 1, 30));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  };

  async function relaySource(source: OutboxSource): Promise<PassResult> {
    const idle: PassResult = { published: 0, more: false, outage: false };
    const name = source.outboxName;
    let batch: PendingOutbox[];
    let leaseUntil: number;
    try {
      const started = Date.now();
      const held = leaseUntilOf.get(source);
      if (held !== undefined && started < held - (2 * leaseMs) / 3) {
        leaseUntil = held;
      } else {
        if (!(await source.acquireOutboxLease(owner, leaseMs))) {
          leased.delete(source);
          leaseUntilOf.delete(source);
          pendingOf.delete(source);
          return idle;
        }
        leased.add(source);
        leaseUntil = started + leaseMs;
        leaseUntilOf.set(source, leaseUntil);
      }
      batch = await source.pendingOutbox(batchSize);
    } catch (err) {
      log.warn({ source: name, err }, 'outbox scan failed; retrying at next poll');
      return idle;
    }
    pendingOf.set(source, pendingIn(batch));
    if (batch.length === 0) return idle;
    // Do not start publishing on a lease that may lapse meanwhile; the next pass renews it first.
    if (Date.now() > leaseUntil - leaseMs / 3) return idle;

    // One publish per topic, each carrying its documents' events in document then write order.
    const byTopic = new Map<string, { events: RawOutgoingEvent[]; docIds: Set<string> }>();
    for (const doc of batch) {
      for (const event of doc.events) {
        let group = byTopic.get(event.topic);
        if (group === undefined) {
          group = { events: [], docIds: new Set() };
          byTopic.set(event.topic, group);
        }
        group.events.push(toRawEvent(event));
        group.docIds.add(doc.docId);
      }
    }

    let published = 0;
    const failed = new Map<string, unknown>();
    // Documents whose publish failed because the bus is unreachable: not the documents' fault, so
    // they keep their due time (no per-document backoff, no write) and the whole relay waits.
    const unreachable = new Set<string>();
    await Promise.all(
      [...byTopic].map(async ([topic, group]) => {
        try {
          await publish(topic, group.events);
          published += group.events.length;
          publishedEvents.add(group.events.length, { service, source: name });
        } catch (err) {
          const transient = isTransientError(err);
          for (const docId of group.docIds) {
            failed.set(docId, err);
            if (transient) unreachable.add(docId);
          }
          log.warn(
            { source: name, topic, events: group.events.length, err },
            transient
              ? 'outbox publish failed, bus unreachable; events kept for retry'
              : 'outbox publish failed; events kept for retry',
          );
        }
      }),
    );

    let retryInMs = Number.POSITIVE_INFINITY;
    await Promise.all(
      batch.map(async (doc) => {
        const attemptKey = `${name}\u0000${doc.docId}`;
        if (unreachable.has(doc.docId)) return;
        if (!failed.has(doc.docId)) {
          try {
            await source.ackOutbox(
              doc.docId,
              doc.events.map((event) => event.id),
            );
            attempts.delete(attemptKey);
            return;
          } catch (err) {
            // Published but still in the document: it will be published again (same ce_id).
            failed.set(doc.docId, err);
            log.warn(
              { source: name, docId: doc.docId, err },
              'outbox ack failed; events will be re-published',
            );
          }
        }
        const attempt = (attempts.get(attemptKey) ?? 0) + 1;
        attempts.set(attemptKey, attempt);
        const delay = backoff(attempt);
        retryInMs = Math.min(retryInMs, delay);
        try {
          await source.deferOutbox(doc.docId, new Date(Date.now() + delay));
        } catch (err) {
          log.warn({ source: name, docId: doc.docId, err }, 'outbox defer failed');
        }
      }),
    );
    pendingOf.set(source, pendingIn(batch.filter((doc) => failed.has(doc.docId))));
    if (failed.size > unreachable.size) {
      log.warn(
        { source: name, documents: failed.size - unreachable.size, retryInMs },
        'outbox documents not relayed; backing off',
      );
    }
    if (published > 0)
      log.debug({ source: name, documents: batch.length, events: published }, 'outbox relayed');
    return {
      published,
      more: batch.length >= batchSize && failed.size === 0,
      outage: unreachable.size > 0,
    };
  }

  async function pass(over: readonly OutboxSource[] = sources): Promise<PassResult> {
    const results = await Promise.all(
      over.map(async (source) => {
        const result = await relaySource(source);
        if (result.more) dirty.add(source);
        return result;
      }),
    );
    return {
      published: results.reduce((sum, r) => sum + r.published, 0),
      more: results.some((r) => r.more),
      outage: results.some((r) => r.outage),
    };
  }

  /** Relay the written sources now rather than at the next poll. */
  function nudge(written: readonly OutboxSource[]): void {
    for (const source of written) dirty.add(source);
    nudged = true;
    wake?.();
  }

  /**
   * Sleeps up to `ms`; true when the time ran out. `stop()` ends it early, and so does a local
   * write's nudge when `nudges` is set.
   */
  function sleep(ms: number, nudges: boolean): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(true), ms);
      function done(timedOut: boolean): void {
        clearTimeout(timer);
        wake = undefined;
        resolve(timedOut);
      }
      wake = () => {
        if (nudges || !running) done(false);
      };
    });
  }

  /**
   * The wait after a pass that met an unreachable bus. Local writes do not end it (each would be
   * one more failing publish); with a `ready` probe it asks the bus every second instead of reading
   * a batch, so the backlog goes out about a second after the broker is back.
   */
  async function outageWait(waitMs: number): Promise<void> {
    const probe = publish.ready;
    if (probe === undefined) {
      await sleep(waitMs, false);
      return;
    }
    const until = Date.now() + waitMs;
    while (running && Date.now() < until) {
      await sleep(Math.min(OUTAGE_PROBE_EVERY_MS, until - Date.now()), false);
      if (!running) return;
      if (await probe().catch(() => false)) return;
    }
  }

  async function runLoop(): Promise<void> {
    // The first pass and every poll look at all sources (writes of other processes notify no one
    // here); a nudge after a local write looks only at the sources written to.
    let polled = true;
    // Passes in a row that met an unreachable bus: the wait before the next grows with them.
    let outagePasses = 0;
    while (running) {
      nudged = false;
      const over = polled ? sources : sources.filter((source) => dirty.has(source));
      for (const source of over) dirty.delete(source);
      polled = false;
      let result: PassResult = { published: 0, more: false, outage: false };
      try {
        result = await serial(() => pass(over));
      } catch (err) {
        log.error({ err }, 'outbox relay pass failed');
      }
      if (!running) break;
      if (result.outage) {
        // Writes meanwhile do not wake the relay (each would be one more failing publish); the next
        // pass looks at every source, and the first to succeed ends the outage.
        outagePasses += 1;
        const waitMs = backoff(outagePasses, outageRetryMaxMs);
        if (outagePasses === 1 || outagePasses % 10 === 0)
          log.warn({ passes: outagePasses, waitMs }, 'outbox relay: bus unreachable, waiting');
        await outageWait(waitMs);
        polled = true;
        continue;
      }
      if (outagePasses > 0) {
        log.info({ passes: outagePasses }, 'outbox relay: bus reachable again');
        outagePasses = 0;
      }
      if (result.more || nudged) continue;
      polled = await sleep(pollIntervalMs, true);
    }
  }

  const relay: OutboxRelay = {
    start() {
      if (running) return;
      running = true;
      const observe =
        (read: (pending: { events: number; oldest: number | undefined }) => number) => () =>
          [...pendingOf].map(([source, pending]) => ({
            value: read(pending),
            attributes: { service, source: source.outboxName },
          }));
      stopGauges = [
        metrics.gauge(
          'marquee_outbox_pending_events',
          {
            description:
              'Outbox events this relay saw pending and not yet published at its last pass (of at most one batch of documents)',
          },
          observe((pending) => pending.events),
        ),
        metrics.gauge(
          'marquee_outbox_oldest_pending_age_seconds',
          {
            description: 'Age of the oldest outbox event this relay saw pending at its last pass',
            unit: 's',
          },
          observe((pending) =>
            pending.oldest === undefined ? 0 : Math.max(0, (Date.now() - pending.oldest) / 1000),
          ),
        ),
      ];
      for (const source of sources) unsubscribes.push(source.onOutboxWrite(() => nudge([source])));
      loop = runLoop();
      log.info(
        { owner, sources: sources.map((s) => s.outboxName), pollIntervalMs, batchSize },
        'outbox relay started',
      );
    },

    async stop() {
      const wasRunning = running;
      running = false;
      wake?.();
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      await loop;
      await chain;
      await Promise.all(
        sources.map(async (source) => {
          try {
            await source.settleOutbox?.();
          } catch (err) {
            // Left for the next process: it publishes those documents' events once more.
            log.warn({ source: source.outboxName, err }, 'outbox settle failed');
          }
        }),
      );
      // Also after relayOnce() without start(): its leases would otherwise block others for leaseMs.
      await Promise.all(
        [...leased].map(async (source) => {
          try {
            await source.releaseOutboxLease(owner);
          } catch (err) {
            // It expires on its own; another replica waits at most leaseMs.
            log.warn({ source: source.outboxName, err }, 'outbox lease release failed');
          }
        }),
      );
      leased.clear();
      leaseUntilOf.clear();
      for (const stopGauge of stopGauges.splice(0)) stopGauge();
      pendingOf.clear();
      dirty.clear();
      attempts.clear();
      if (wasRunning) log.info({ owner }, 'outbox relay stopped');
    },

    notify() {
      nudge(sources);
    },

    async relayOnce() {
      return (await serial(() => pass())).published;
    },
  };
  return relay;
}

/** The events of `docs` and the write time of the oldest (for the backlog gauges). */
function pendingIn(docs: readonly PendingOutbox[]): { events: number; oldest: number | undefined } {
  let events = 0;
  let oldest: number | undefined;
  for (const doc of docs) {
    events += doc.events.length;
    for (const event of doc.events) {
      const time = event.time.getTime();
      if (oldest === undefined || time < oldest) oldest = time;
    }
  }
  return { events, oldest };
}

/** The `service` its logger names (every service's logger carries one), for metric labels. */
function serviceOf(logger: Logger): string {
  const bindings = (logger as { bindings?: () => Record<string, unknown> }).bindings?.();
  return typeof bindings?.['service'] === 'string' ? bindings['service'] : 'unknown';
}

/** How often a relay waiting out an unreachable bus asks the publisher whether it is back. */
const OUTAGE_PROBE_EVERY_MS = 1_000;

function toRawEvent(event: OutboxEvent): RawOutgoingEvent {
  const headers: Record<string, string> = {};
  if (event.traceparent !== undefined) headers.traceparent = event.traceparent;
  if (event.tracestate !== undefined) headers.tracestate = event.tracestate;
  if (event.correlationId !== undefined) headers[CORRELATION_ID_HEADER] = event.correlationId;
  return {
    id: event.id,
    key: event.key,
    type: event.type,
    value: event.value,
    time: event.time,
    headers,
  };
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`createOutboxRelay: ${name} must be a positive number`);
  return value;
}
