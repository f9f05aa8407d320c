/**
 * The in-process broker of the memory bus: a per-topic log split into partitions by key hash,
 * committed offsets per group, one member at a time per group and topic, and retention (`all`, or
 * `unconsumed`: records are released once every group that joined their topic read past them).
 * Several buses may share one broker, as processes share a Kafka cluster: a bus closed and replaced
 * by a new one with the same group resumes from the group's committed offsets.
 */

/** One stored record, as a test inspects it. */
export interface MemoryRecord {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  /** Encoded value; `null` for a tombstone. */
  value: Uint8Array | null;
  headers: Record<string, string>;
  timestamp: Date;
}

interface PartitionLog {
  /** Offset of `records[0]`: records below it were released (retention `unconsumed`). */
  base: number;
  records: MemoryRecord[];
}

interface TopicLog {
  partitions: PartitionLog[];
  /** Every record in append order, for inspection (retention `all` only). */
  all: MemoryRecord[];
  waiters: Set<() => void>;
  /** Every group that ever joined the topic: a record is released once all of them are past it. */
  groups: Set<string>;
}

interface Membership {
  owner: symbol | undefined;
  waiting: { member: symbol; grant: () => void }[];
}

export interface MemoryBrokerOptions {
  /** Partitions of a topic created on first use (default 3, Kafka's local `num.partitions`). */
  partitions?: number;
  /**
   * What the log keeps. `all` (default): every record, as a test inspects it. `unconsumed`: a
   * record is released once every group that has joined its topic committed past it, so a
   * long-running process (the embedded default) holds only what is still to be read, not every
   * record it ever carried. A group that joins later starts at the oldest record still held (Kafka's
   * `auto.offset.reset=earliest` after retention deleted the rest); a topic no group has joined keeps
   * everything, and a group that stopped reading holds what it has not read (retention here follows
   * the consumers, unlike Kafka's, which follows time and size).
   */
  retain?: 'all' | 'unconsumed';
}

/** Released records are cut from the front of a partition's array in steps of at least this many. */
const RELEASE_STEP = 1024;

export class MemoryBroker {
  readonly defaultPartitions: number;
  #retain: 'all' | 'unconsumed';
  readonly #topics = new Map<string, TopicLog>();
  readonly #committed = new Map<string, number>();
  readonly #memberships = new Map<string, Membership>();

  constructor(options: MemoryBrokerOptions = {}) {
    const partitions = options.partitions ?? 3;
    if (!Number.isInteger(partitions) || partitions < 1)
      throw new RangeError(`partitions must be >= 1, got ${partitions}`);
    this.defaultPartitions = partitions;
    this.#retain = options.retain ?? 'all';
  }

  /** Creates the topic if needed; an existing topic keeps its partition count. */
  ensureTopic(topic: string, partitions = this.defaultPartitions): number {
    let log = this.#topics.get(topic);
    if (!log) {
      log = {
        partitions: Array.from({ length: partitions }, () => ({ base: 0, records: [] })),
        all: [],
        waiters: new Set(),
        groups: new Set(),
      };
      this.#topics.set(topic, log);
    }
    return log.partitions.length;
  }

  /**
   * Every record of the topic, all partitions, in the order they were appended (copies); with
   * retention `unconsumed`, the records still held, partition by partition.
   */
  records(topic: string): MemoryRecord[] {
    const log = this.#topics.get(topic);
    const held =
      this.#retain === 'all' ? (log?.all ?? []) : (log?.partitions.flatMap((p) => p.records) ?? []);
    return held.map((record) => ({
      ...record,
      headers: { ...record.headers },
    }));
  }

  /**
   * Appends a record as-is, as any producer would (the bus adds CloudEvents headers and trace
   * context before calling this; a test may call it to write a foreign or malformed record).
   */
  append(
    topic: string,
    record: {
      key: string;
      value: Uint8Array | null;
      headers: Record<string, string>;
      timestamp?: Date;
    },
  ): MemoryRecord {
    const count = this.ensureTopic(topic);
    const log = this.#topics.get(topic)!;
    const partition = partitionFor(record.key, count);
    const { base, records } = log.partitions[partition]!;
    const stored: MemoryRecord = {
      topic,
      partition,
      offset: String(base + records.length),
      key: record.key,
      value: record.value,
      headers: { ...record.headers },
      timestamp: record.timestamp ?? new Date(),
    };
    records.push(stored);
    if (this.#retain === 'all') log.all.push(stored);
    const waiters = [...log.waiters];
    log.waiters.clear();
    for (const wake of waiters) wake();
    return stored;
  }

  read(topic: string, partition: number, offset: number): MemoryRecord | undefined {
    const log = this.#topics.get(topic)?.partitions[partition];
    return log?.records[offset - log.base];
  }

  /** The oldest offset still held (0 unless records were released). */
  startOffset(topic: string, partition: number): number {
    return this.#topics.get(topic)?.partitions[partition]?.base ?? 0;
  }

  endOffset(topic: string, partition: number): number {
    const log = this.#topics.get(topic)?.partitions[partition];
    return log ? log.base + log.records.length : 0;
  }

  /** Resolves on the next append to the topic, or when the signal aborts. */
  waitForAppend(topic: string, signal: AbortSignal): Promise<void> {
    const log = this.#topics.get(topic);
    if (!log || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        log.waiters.delete(wake);
        resolve();
      };
      log.waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The next offset the group will read in that partition, as Kafka reports a committed offset. */
  committedOffset(group: string, topic: string, partition: number): string | undefined {
    const offset = this.#committed.get(offsetKey(group, topic, partition));
    return offset === undefined ? undefined : String(offset);
  }

  commit(group: string, topic: string, partition: number, nextOffset: number): void {
    this.#committed.set(offsetKey(group, topic, partition), nextOffset);
    if (this.#retain === 'unconsumed') this.release(topic, partition);
  }

  /** What the log keeps (MemoryBrokerOptions.retain). */
  get retain(): 'all' | 'unconsumed' {
    return this.#retain;
  }

  /**
   * Switches to retention `unconsumed` from now on, releasing at once what every group has read: for
   * a process whose consumers subscribe one service at a time (the embedded default), once they all
   * have, so none misses what an earlier one already read.
   */
  retainUnconsumed(): void {
    if (this.#retain === 'unconsumed') return;
    this.#retain = 'unconsumed';
    for (const [topic, log] of this.#topics) {
      log.all = [];
      for (let partition = 0; partition < log.partitions.length; partition++) {
        this.release(topic, partition);
      }
    }
  }

  /**
   * Makes `holder` (a global subscription, which joins no group) hold the topic's records as a
   * group does: a record is released once it and every group have read past it. Its position is
   * given with {@link commit}.
   */
  hold(topic: string, holder: string): void {
    this.ensureTopic(topic);
    this.#topics.get(topic)!.groups.add(holder);
  }

  /** Stops `holder` holding the topic's records (a closed global subscription). */
  unhold(topic: string, holder: string): void {
    const log = this.#topics.get(topic);
    if (!log?.groups.delete(holder)) return;
    for (let partition = 0; partition < log.partitions.length; partition++) {
      this.#committed.delete(offsetKey(holder, topic, partition));
      if (this.#retain === 'unconsumed') this.release(topic, partition);
    }
  }

  /** Drops the records of a partition that every group of the topic has committed past. */
  private release(topic: string, partition: number): void {
    const log = this.#topics.get(topic);
    const held = log?.partitions[partition];
    if (!log || !held || log.groups.size === 0) return;
    let consumed = Infinity;
    for (const group of log.groups) {
      consumed = Math.min(consumed, this.#committed.get(offsetKey(group, topic, partition)) ?? 0);
    }
    const releasable = Math.min(consumed, held.base + held.records.length) - held.base;
    // Cut in steps (one splice per RELEASE_STEP records), or at once when nothing is left to read.
    if (releasable >= RELEASE_STEP || (releasable > 0 && releasable === held.records.length)) {
      held.records.splice(0, releasable);
      held.base += releasable;
    }
  }

  /**
   * Joins a group's consumption of a topic. One member at a time owns every partition (a valid
   * Kafka assignment, and enough in one process); later members wait and take over when the owner
   * leaves, so a replacement never processes records alongside the one it replaces.
   */
  join(group: string, topic: string, member: symbol, signal: AbortSignal): Promise<boolean> {
    this.ensureTopic(topic);
    this.#topics.get(topic)!.groups.add(group);
    const key = membershipKey(group, topic);
    let membership = this.#memberships.get(key);
    if (!membership) {
      membership = { owner: undefined, waiting: [] };
      this.#memberships.set(key, membership);
    }
    if (membership.owner === undefined) {
      membership.owner = member;
      return Promise.resolve(true);
    }
    const state = membership;
    return new Promise((resolve) => {
      const entry = {
        member,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        },
      };
      const onAbort = (): void => {
        state.waiting = state.waiting.filter((waiting) => waiting !== entry);
        resolve(false);
      };
      state.waiting.push(entry);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  leave(group: string, topic: string, member: symbol): void {
    const membership = this.#memberships.get(membershipKey(group, topic));
    if (!membership || membership.owner !== member) return;
    const next = membership.waiting.shift();
    membership.owner = next?.member;
    next?.grant();
  }
}

export function createMemoryBroker(options: MemoryBrokerOptions = {}): MemoryBroker {
  return new MemoryBroker(options);
}

/** FNV-1a over the key's UTF-8 bytes: stable across runs, so a key always lands in one partition. */
export function partitionFor(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}

const offsetKey = (group: string, topic: string, partition: number): string =>
  `${group}\u0000${topic}\u0000${partition}`;
const membershipKey = (group: string, topic: string): string => `${group}\u0000${topic}`;
