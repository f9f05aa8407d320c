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
import { isTransientError } from '../errors/transient.js';
import type { Logger } from '../logger/index.js';
import { CORRELATION_ID_HEADER } from '../logger/index.js';
import { metrics } from '../metrics/registry.js';
import { settingsOf, type OutboxRelayOptions, type RelaySettings } from './relay-options.js';
import type {
  OutboxEvent,
  OutboxSource,
  PendingOutbox,
  RawOutgoingEvent,
  RawPublisher,
} from './types.js';

export type { OutboxRelayOptions } from './relay-options.js';

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

/** The events a source's last pass left pending and the write time of the oldest. */
interface Pending {
  events: number;
  oldest: number | undefined;
}

/** The outcome of a batch's publishes: events published, documents whose publish failed. */
interface Publication {
  published: number;
  failed: Map<string, unknown>;
  /**
   * Documents whose publish failed because the bus is unreachable: not the documents' fault, so
   * they keep their due time (no per-document backoff, no write) and the whole relay waits.
   */
  unreachable: Set<string>;
}

export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const relay = new Relay(options);
  return {
    start: () => relay.start(),
    stop: () => relay.stop(),
    notify: () => relay.notify(),
    relayOnce: () => relay.relayOnce(),
  };
}

/** One relay's state: its leases, backoffs and backlog, and the polling loop. */
class Relay {
  readonly #settings: RelaySettings;
  readonly #sources: readonly OutboxSource[];
  readonly #publish: RawPublisher;
  readonly #log: Logger;
  readonly #service: string;
  readonly #publishedEvents = metrics.counter('marquee_outbox_published_events', {
    description: 'Outbox events published to the bus (and then acknowledged or re-published)',
  });
  // What each source's last pass left pending, for the backlog gauges: the events of the documents
  // it read (at most batchSize, due ones: deferred documents are not read) that are not published
  // yet, and the write time of the oldest. Absent while another replica holds the source's lease.
  readonly #pendingOf = new Map<OutboxSource, Pending>();
  #stopGauges: (() => void)[] = [];
  // Failed attempts per document, for the backoff; forgotten on success.
  readonly #attempts = new Map<string, number>();
  readonly #leased = new Set<OutboxSource>();
  // Until when each held lease runs, as of its last renewal: a pass renews it only once a third
  // of it has gone by, not on every pass (a write each, which a busy store feels).
  readonly #leaseUntilOf = new Map<OutboxSource, number>();
  // Sources written to since their last pass: a nudge relays only these; the poll relays all.
  readonly #dirty = new Set<OutboxSource>();
  readonly #unsubscribes: (() => void)[] = [];
  #running = false;
  #loop: Promise<void> | undefined;
  #nudged = false;
  #wake: (() => void) | undefined;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(options: OutboxRelayOptions) {
    this.#settings = settingsOf(options);
    this.#sources = options.sources;
    this.#publish = options.publish;
    this.#log = options.logger.child({ component: 'outbox-relay' });
    this.#service = serviceOf(options.logger);
  }

  /** Starts polling (idempotent). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#stopGauges = this.#backlogGauges();
    for (const source of this.#sources)
      this.#unsubscribes.push(source.onOutboxWrite(() => this.#nudge([source])));
    this.#loop = this.#runLoop();
    const { owner, pollIntervalMs, batchSize } = this.#settings;
    this.#log.info(
      { owner, sources: this.#sources.map((s) => s.outboxName), pollIntervalMs, batchSize },
      'outbox relay started',
    );
  }

  /** Stops polling, lets the batch in flight finish publishing and acking, releases the leases. */
  async stop(): Promise<void> {
    const wasRunning = this.#running;
    this.#running = false;
    this.#wake?.();
    for (const unsubscribe of this.#unsubscribes.splice(0)) unsubscribe();
    await this.#loop;
    await this.#chain;
    await this.#settleSources();
    // Also after relayOnce() without start(): its leases would otherwise block others for leaseMs.
    await this.#releaseLeases();
    for (const stopGauge of this.#stopGauges.splice(0)) stopGauge();
    this.#pendingOf.clear();
    this.#dirty.clear();
    this.#attempts.clear();
    if (wasRunning) this.#log.info({ owner: this.#settings.owner }, 'outbox relay stopped');
  }

  /** Relay now rather than at the next poll (called by the sources after local writes). */
  notify(): void {
    this.#nudge(this.#sources);
  }

  /** One pass over every source now, serialised with the polling loop: the events published. */
  async relayOnce(): Promise<number> {
    return (await this.#serial(() => this.#pass())).published;
  }

  /** The backlog gauges, read from what each source's last pass left pending. */
  #backlogGauges(): (() => void)[] {
    const observe = (read: (pending: Pending) => number) => () =>
      [...this.#pendingOf].map(([source, pending]) => ({
        value: read(pending),
        attributes: { service: this.#service, source: source.outboxName },
      }));
    return [
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
  }

  async #settleSources(): Promise<void> {
    await Promise.all(
      this.#sources.map(async (source) => {
        try {
          await source.settleOutbox?.();
        } catch (err) {
          // Left for the next process: it publishes those documents' events once more.
          this.#log.warn({ source: source.outboxName, err }, 'outbox settle failed');
        }
      }),
    );
  }

  async #releaseLeases(): Promise<void> {
    await Promise.all(
      [...this.#leased].map(async (source) => {
        try {
          await source.releaseOutboxLease(this.#settings.owner);
        } catch (err) {
          // It expires on its own; another replica waits at most leaseMs.
          this.#log.warn({ source: source.outboxName, err }, 'outbox lease release failed');
        }
      }),
    );
    this.#leased.clear();
    this.#leaseUntilOf.clear();
  }

  #serial<R>(work: () => Promise<R>): Promise<R> {
    const run = this.#chain.then(work, work);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  #backoff(attempt: number, maxMs = this.#settings.retryMaxMs): number {
    const ceiling = Math.min(maxMs, this.#settings.retryMinMs * 2 ** Math.min(attempt - 1, 30));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  async #relaySource(source: OutboxSource): Promise<PassResult> {
    const idle: PassResult = { published: 0, more: false, outage: false };
    const name = source.outboxName;
    const scanned = await this.#scan(source);
    if (scanned === undefined) return idle;
    const { batch, leaseUntil } = scanned;
    this.#pendingOf.set(source, pendingIn(batch));
    if (batch.length === 0) return idle;
    // Do not start publishing on a lease that may lapse meanwhile; the next pass renews it first.
    if (Date.now() > leaseUntil - this.#settings.leaseMs / 3) return idle;

    const publication = await this.#publishBatch(name, batch);
    const { published, failed, unreachable } = publication;
    const retryInMs = await this.#settleBatch(source, batch, publication);
    this.#pendingOf.set(source, pendingIn(batch.filter((doc) => failed.has(doc.docId))));
    if (failed.size > unreachable.size) {
      this.#log.warn(
        { source: name, documents: failed.size - unreachable.size, retryInMs },
        'outbox documents not relayed; backing off',
      );
    }
    if (published > 0)
      this.#log.debug(
        { source: name, documents: batch.length, events: published },
        'outbox relayed',
      );
    return {
      published,
      more: batch.length >= this.#settings.batchSize && failed.size === 0,
      outage: unreachable.size > 0,
    };
  }

  /** The source's due documents and until when its lease runs; none without the lease. */
  async #scan(
    source: OutboxSource,
  ): Promise<{ batch: PendingOutbox[]; leaseUntil: number } | undefined> {
    try {
      const leaseUntil = await this.#holdLease(source);
      if (leaseUntil === undefined) return undefined;
      return { batch: await source.pendingOutbox(this.#settings.batchSize), leaseUntil };
    } catch (err) {
      this.#log.warn(
        { source: source.outboxName, err },
        'outbox scan failed; retrying at next poll',
      );
      return undefined;
    }
  }

  /** Renews the source's lease when a third of it has gone by: until when it runs, if held. */
  async #holdLease(source: OutboxSource): Promise<number | undefined> {
    const { leaseMs, owner } = this.#settings;
    const started = Date.now();
    const held = this.#leaseUntilOf.get(source);
    if (held !== undefined && started < held - (2 * leaseMs) / 3) return held;
    if (!(await source.acquireOutboxLease(owner, leaseMs))) {
      this.#leased.delete(source);
      this.#leaseUntilOf.delete(source);
      this.#pendingOf.delete(source);
      return undefined;
    }
    this.#leased.add(source);
    const leaseUntil = started + leaseMs;
    this.#leaseUntilOf.set(source, leaseUntil);
    return leaseUntil;
  }

  /** One publish per topic, each carrying its documents' events in document then write order. */
  async #publishBatch(name: string, batch: readonly PendingOutbox[]): Promise<Publication> {
    const publication: Publication = { published: 0, failed: new Map(), unreachable: new Set() };
    await Promise.all(
      [...byTopic(batch)].map(async ([topic, group]) => {
        try {
          await this.#publish(topic, group.events);
          publication.published += group.events.length;
          this.#publishedEvents.add(group.events.length, { service: this.#service, source: name });
        } catch (err) {
          const transient = isTransientError(err);
          for (const docId of group.docIds) {
            publication.failed.set(docId, err);
            if (transient) publication.unreachable.add(docId);
          }
          this.#log.warn(
            { source: name, topic, events: group.events.length, err },
            transient
              ? 'outbox publish failed, bus unreachable; events kept for retry'
              : 'outbox publish failed; events kept for retry',
          );
        }
      }),
    );
    return publication;
  }

  /**
   * Acks the published documents' events and defers the failed documents (those whose ack fails
   * too): the shortest of their backoffs.
   */
  async #settleBatch(
    source: OutboxSource,
    batch: readonly PendingOutbox[],
    { failed, unreachable }: Publication,
  ): Promise<number> {
    const delays = await Promise.all(
      batch.map(async (doc) => {
        if (unreachable.has(doc.docId)) return Number.POSITIVE_INFINITY;
        if (!failed.has(doc.docId) && (await this.#ack(source, doc, failed)))
          return Number.POSITIVE_INFINITY;
        return this.#defer(source, doc);
      }),
    );
    return Math.min(Number.POSITIVE_INFINITY, ...delays);
  }

  /** Acks a published document's events: false (and the document in `failed`) when that failed. */
  async #ack(
    source: OutboxSource,
    doc: PendingOutbox,
    failed: Map<string, unknown>,
  ): Promise<boolean> {
    try {
      await source.ackOutbox(
        doc.docId,
        doc.events.map((event) => event.id),
      );
      this.#attempts.delete(attemptKeyOf(source, doc));
      return true;
    } catch (err) {
      // Published but still in the document: it will be published again (same ce_id).
      failed.set(doc.docId, err);
      this.#log.warn(
        { source: source.outboxName, docId: doc.docId, err },
        'outbox ack failed; events will be re-published',
      );
      return false;
    }
  }

  /** Backs a failed document off for its next attempt: the delay. */
  async #defer(source: OutboxSource, doc: PendingOutbox): Promise<number> {
    const attemptKey = attemptKeyOf(source, doc);
    const attempt = (this.#attempts.get(attemptKey) ?? 0) + 1;
    this.#attempts.set(attemptKey, attempt);
    const delay = this.#backoff(attempt);
    try {
      await source.deferOutbox(doc.docId, new Date(Date.now() + delay));
    } catch (err) {
      this.#log.warn({ source: source.outboxName, docId: doc.docId, err }, 'outbox defer failed');
    }
    return delay;
  }

  async #pass(over: readonly OutboxSource[] = this.#sources): Promise<PassResult> {
    const results = await Promise.all(
      over.map(async (source) => {
        const result = await this.#relaySource(source);
        if (result.more) this.#dirty.add(source);
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
  #nudge(written: readonly OutboxSource[]): void {
    for (const source of written) this.#dirty.add(source);
    this.#nudged = true;
    this.#wake?.();
  }

  /**
   * Sleeps up to `ms`; true when the time ran out. `stop()` ends it early, and so does a local
   * write's nudge when `nudges` is set.
   */
  #sleep(ms: number, nudges: boolean): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(true), ms);
      const done = (timedOut: boolean): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve(timedOut);
      };
      this.#wake = () => {
        if (nudges || !this.#running) done(false);
      };
    });
  }

  /**
   * The wait after a pass that met an unreachable bus. Local writes do not end it (each would be
   * one more failing publish); with a `ready` probe it asks the bus every second instead of reading
   * a batch, so the backlog goes out about a second after the broker is back.
   */
  async #outageWait(waitMs: number): Promise<void> {
    const probe = this.#publish.ready;
    if (probe === undefined) {
      await this.#sleep(waitMs, false);
      return;
    }
    const until = Date.now() + waitMs;
    while (this.#running && Date.now() < until) {
      await this.#sleep(Math.min(OUTAGE_PROBE_EVERY_MS, until - Date.now()), false);
      if (!this.#running) return;
      if (await probe().catch(() => false)) return;
    }
  }

  async #runLoop(): Promise<void> {
    // The first pass and every poll look at all sources (writes of other processes notify no one
    // here); a nudge after a local write looks only at the sources written to.
    let polled = true;
    // Passes in a row that met an unreachable bus: the wait before the next grows with them.
    let outagePasses = 0;
    let lastPassAt = Number.NEGATIVE_INFINITY;
    while (this.#running) {
      // A nudge right after a pass waits for the linger: the writes meanwhile go out together.
      const lingerLeft = lastPassAt + this.#settings.lingerMs - Date.now();
      if (lingerLeft > 0 && !polled) {
        await this.#sleep(lingerLeft, false);
        if (!this.#running) break;
      }
      lastPassAt = Date.now();
      this.#nudged = false;
      const over = polled
        ? this.#sources
        : this.#sources.filter((source) => this.#dirty.has(source));
      for (const source of over) this.#dirty.delete(source);
      polled = false;
      let result: PassResult = { published: 0, more: false, outage: false };
      try {
        result = await this.#serial(() => this.#pass(over));
      } catch (err) {
        this.#log.error({ err }, 'outbox relay pass failed');
      }
      if (!this.#running) break;
      if (result.outage) {
        // Writes meanwhile do not wake the relay (each would be one more failing publish); the next
        // pass looks at every source, and the first to succeed ends the outage.
        outagePasses += 1;
        const waitMs = this.#backoff(outagePasses, this.#settings.outageRetryMaxMs);
        if (outagePasses === 1 || outagePasses % 10 === 0)
          this.#log.warn(
            { passes: outagePasses, waitMs },
            'outbox relay: bus unreachable, waiting',
          );
        await this.#outageWait(waitMs);
        polled = true;
        continue;
      }
      if (outagePasses > 0) {
        this.#log.info({ passes: outagePasses }, 'outbox relay: bus reachable again');
        outagePasses = 0;
      }
      if (result.more || this.#nudged) continue;
      polled = await this.#sleep(this.#settings.pollIntervalMs, true);
    }
  }
}

/** A document's key in the backoff attempts. */
function attemptKeyOf(source: OutboxSource, doc: PendingOutbox): string {
  return `${source.outboxName}\u0000${doc.docId}`;
}

/** A batch's events grouped by topic, in document then write order, with their documents' ids. */
function byTopic(
  batch: readonly PendingOutbox[],
): Map<string, { events: RawOutgoingEvent[]; docIds: Set<string> }> {
  const groups = new Map<string, { events: RawOutgoingEvent[]; docIds: Set<string> }>();
  for (const doc of batch) {
    for (const event of doc.events) {
      let group = groups.get(event.topic);
      if (group === undefined) {
        group = { events: [], docIds: new Set() };
        groups.set(event.topic, group);
      }
      group.events.push(toRawEvent(event));
      group.docIds.add(doc.docId);
    }
  }
  return groups;
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
