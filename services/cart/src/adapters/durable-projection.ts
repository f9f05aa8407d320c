import { errorKindOf, isWriteRace, retryingConflicts } from '@marquee/platform/kernel';
import type { VersionedStore } from '@marquee/platform/store';
import { newerProjection } from '../domain/event-projection.js';
import type { EventProjectionDoc } from './event-projection-store.js';

/** Longest the last write-behind pass at stop may take; what is left is still on the topics. */
const STOP_BUDGET_MS = 5_000;

export interface DurableProjectionLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Keeps the in-memory event projection durable. Cart reads and applies the projection in memory
 * (the topics are read whole at every start, so catching up costs no database write per record);
 * this copies it from the `events` collection into memory at start (`load`, so what the topics no
 * longer hold, such as availability older than its retention, is still known) and writes behind
 * every event that changed (`changed`), once per pass, in the background.
 *
 * A write never takes the durable copy backwards (`newerProjection`: event by version, areas by
 * sequence), so replicas writing the same event converge. An event first written by this process is
 * inserted without a read: a read of an absent id is a scan of the collection on FerretDB, which
 * made a replay of the whole topics into the collection quadratic.
 */
export class DurableProjection {
  readonly #dirty = new Set<string>();
  /** Events known to be in the durable collection (loaded or written by this process). */
  readonly #stored = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #pass: Promise<number> | undefined;

  #stopped = false;

  constructor(
    /** The projection cart reads and applies. */
    readonly memory: VersionedStore<EventProjectionDoc>,
    private readonly durable: VersionedStore<EventProjectionDoc>,
    private readonly log: DurableProjectionLog,
  ) {}

  /** Copies the durable projection into memory; call before the topics are read. */
  async load(): Promise<number> {
    const docs = await this.durable.find({});
    for (const { version: _version, ...doc } of docs) {
      await this.memory.insert(doc);
      this.#stored.add(doc.id);
    }
    return docs.length;
  }

  /** The event changed in memory: it is written on the next pass. */
  changed(eventId: string): void {
    this.#dirty.add(eventId);
  }

  /** Events changed and not written yet. */
  get pending(): number {
    return this.#dirty.size;
  }

  /** A pass every `intervalMs` from now on. */
  start(intervalMs: number): void {
    if (this.#stopped) return;
    this.#timer ??= setInterval(() => {
      this.flush().catch(() => undefined);
    }, intervalMs);
    this.#timer.unref();
  }

  /**
   * Writes every event changed since the last pass (a pass already running is waited for). An
   * event whose write failed stays for the next pass. Resolves how many were written.
   */
  async flush(deadline = Number.POSITIVE_INFINITY): Promise<number> {
    while (this.#pass) await this.#pass;
    this.#pass = this.#run(deadline).finally(() => {
      this.#pass = undefined;
    });
    return this.#pass;
  }

  /** Stops the passes and writes what is left, within a bounded time. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush(Date.now() + STOP_BUDGET_MS).catch(() => undefined);
    if (this.#dirty.size > 0)
      this.log.warn(
        { events: this.#dirty.size },
        'event projection not all written at stop; the topics still hold it',
      );
  }

  async #run(deadline: number): Promise<number> {
    const ids = [...this.#dirty];
    let written = 0;
    for (const id of ids) {
      if (Date.now() > deadline) break;
      this.#dirty.delete(id);
      try {
        if (await this.#write(id)) written += 1;
      } catch (error) {
        this.#dirty.add(id);
        this.log.warn(
          { event_id: id, err: error },
          'event projection write failed; retried on the next pass',
        );
      }
    }
    return written;
  }

  async #write(id: string): Promise<boolean> {
    return retryingConflicts(
      async () => {
        const held = await this.memory.get(id);
        if (!held) return false;
        const { version: _version, ...wanted } = held;
        const stored = this.#stored.has(id) ? await this.durable.get(id) : undefined;
        if (!stored) {
          await this.durable.insert(wanted);
          this.#stored.add(id);
          return true;
        }
        const { version, ...current } = stored;
        const next = newerProjection(current, wanted);
        if (!next) return false;
        await this.durable.update(id, version, next);
        return true;
      },
      {
        isConflict: isWriteRace,
        // Another replica wrote it first: merge into its copy.
        beforeRetry: (error) => {
          if (errorKindOf(error) === 'already_exists') this.#stored.add(id);
        },
      },
    );
  }
}
