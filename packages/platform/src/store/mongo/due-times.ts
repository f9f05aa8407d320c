/**
 * In-process mode: the due times of a collection's `StoreIndex.due` field, kept in memory so a
 * sweeper's `{ field: { $lte: now } }` reads the due documents by `_id` instead of decoding the
 * whole collection each time it runs (FerretDB 1.24 answers any filter but a bare `_id` that way).
 * Loaded by one scan at first use and again every `DUE_RELOAD_MS` (what an operator may have
 * changed by hand); every write of this process notes the time it stored.
 */
import { AppError } from '../../errors/index.js';
import { isOperatorObject } from '../memory-query.js';
import type { FindOptions, StoreFilter, StoreIndex } from '../types.js';
import type { CollectionMemory, DueState } from './collection-memory.js';
import type { Collection, Filter, StoredDoc } from './stored.js';
import { toDocument } from './stored.js';

/** What a due field holds: dates, or epoch milliseconds as numbers. */
type DueKind = 'date' | 'number';

/** The bound of a due-time query and the kind of value it compares with. */
export interface DueBound {
  bound: number;
  kind: DueKind;
}

/** How often the due times are loaded again from the collection. */
const DUE_RELOAD_MS = 60_000;

export class DueTimes {
  readonly #field: string;
  readonly #state: DueState;
  readonly #docs: () => Collection<StoredDoc>;

  /** The due times of the collection's `due` index; `undefined` when it has none. */
  static of(
    collection: string,
    indexes: readonly StoreIndex<unknown>[] | undefined,
    memory: CollectionMemory,
    docs: () => Collection<StoredDoc>,
  ): DueTimes | undefined {
    const dueIndex = (indexes ?? []).find((index) => index.due === true);
    const field = dueIndex && Object.keys(dueIndex.fields)[0];
    if (dueIndex && (Object.keys(dueIndex.fields).length !== 1 || field === 'id'))
      throw new AppError('invalid_argument', `${collection}: a due index names one date field`);
    return field === undefined ? undefined : new DueTimes(field, memory.due, docs);
  }

  private constructor(field: string, state: DueState, docs: () => Collection<StoredDoc>) {
    this.#field = field;
    this.#state = state;
    this.#docs = docs;
  }

  /** After a write under the mutex: the document's due time (`undefined`: none). */
  note(id: string, at: number | undefined): void {
    if (at === undefined) this.#state.times.delete(id);
    else this.#state.times.set(id, at);
    this.#state.writesDuringLoad?.set(id, at);
  }

  /** After a write under the mutex: the due time of the data it stored. */
  noteData(id: string, data: Record<string, unknown>): void {
    this.note(id, this.dueOf(data));
  }

  /**
   * A document's due time (epoch ms) from a date or a number; with `kind`, only from that kind
   * (a range compares a date with dates and a number with numbers only, as the server does).
   */
  dueOf(data: Record<string, unknown> | undefined, kind?: DueKind): number | undefined {
    const at = data?.[this.#field];
    if (at instanceof Date) return kind === 'number' ? undefined : at.getTime();
    if (typeof at === 'number' && Number.isFinite(at)) return kind === 'date' ? undefined : at;
    return undefined;
  }

  /**
   * The bound of a due-time query (`{ [field]: { $lte: date } }`, sorted by it ascending or not
   * at all, from the first document), or `undefined` for any other query.
   */
  query<T>(filter: StoreFilter<T>, options: FindOptions<T>, skip: number): DueBound | undefined {
    if (skip !== 0) return undefined;
    const fields = Object.entries(filter).filter(([, condition]) => condition !== undefined);
    if (fields.length !== 1 || fields[0]![0] !== this.#field) return undefined;
    const condition = fields[0]![1] as unknown;
    if (!isOperatorObject(condition)) return undefined;
    const operators = Object.entries(condition as object).filter(([, v]) => v !== undefined);
    if (operators.length !== 1 || operators[0]![0] !== '$lte') return undefined;
    const bound = operators[0]![1] as unknown;
    const at =
      bound instanceof Date
        ? { bound: bound.getTime(), kind: 'date' as const }
        : typeof bound === 'number' && Number.isFinite(bound)
          ? { bound, kind: 'number' as const }
          : undefined;
    if (at === undefined) return undefined;
    const sort = Object.entries(options.sort ?? {}).filter(([, d]) => d !== undefined);
    if (
      sort.length > 1 ||
      (sort.length === 1 && (sort[0]![0] !== this.#field || sort[0]![1] !== 1))
    )
      return undefined;
    return at;
  }

  /** A due-time query: the due documents by `_id`, soonest first. */
  async find<T>(
    { bound, kind }: DueBound,
    limit: number | undefined,
    read: (id: string) => Promise<StoredDoc | null>,
  ): Promise<T[]> {
    const state = this.#state;
    if (Date.now() - state.loadedAt >= DUE_RELOAD_MS) await this.#load();
    const candidates = [...state.times]
      .filter(([, at]) => at <= bound)
      .sort(([a, atA], [b, atB]) => atA - atB || (a < b ? -1 : a > b ? 1 : 0));
    const found: { doc: T; at: number }[] = [];
    for (const [id, remembered] of candidates) {
      if (limit !== undefined && found.length >= limit) break;
      const stored = await read(id);
      const storedAt = this.dueOf(stored?.data);
      // Learn what is stored, unless a write changed the time meanwhile.
      if (state.times.get(id) === remembered) {
        if (storedAt === undefined) state.times.delete(id);
        else state.times.set(id, storedAt);
      }
      const at = this.dueOf(stored?.data, kind);
      if (stored !== null && at !== undefined && at <= bound)
        found.push({ doc: toDocument<T>(stored), at });
    }
    return found
      .sort(
        (a, b) =>
          a.at - b.at || (idOf(a.doc) < idOf(b.doc) ? -1 : idOf(a.doc) > idOf(b.doc) ? 1 : 0),
      )
      .map(({ doc }) => doc);
  }

  /** Loads the due times from the collection (one scan), keeping what writes set meanwhile. */
  #load(): Promise<void> {
    const state = this.#state;
    state.loading ??= (async () => {
      const writes = new Map<string, number | undefined>();
      state.writesDuringLoad = writes;
      try {
        const path = `data.${this.#field}`;
        const found = await this.#docs()
          .find({ tombstone: false, [path]: { $exists: true } } as Filter, {
            projection: { _id: 1, [path]: 1 },
          })
          .toArray();
        const times = new Map<string, number>();
        for (const doc of found) {
          const at = this.dueOf(doc.data);
          if (at !== undefined) times.set(doc._id, at);
        }
        for (const [id, at] of writes) {
          if (at === undefined) times.delete(id);
          else times.set(id, at);
        }
        state.times = times;
        state.loadedAt = Date.now();
      } finally {
        state.writesDuringLoad = undefined;
        state.loading = undefined;
      }
    })();
    return state.loading;
  }
}

const idOf = (doc: unknown): string => (doc as { id: string }).id;
