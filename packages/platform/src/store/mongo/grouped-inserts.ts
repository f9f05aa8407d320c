/**
 * Inserts of one collection, grouped. The first insert goes out at once, alone;
 * inserts asked for while one is on its way wait for it and go together as one `insert` command
 * (unordered, up to `MAX_GROUP`), so concurrent writes of a collection share one command instead
 * of paying one each (on FerretDB a command's cost is mostly per command, not per document: 200
 * fans joining a queue at once cost a few commands, not 200). Each caller learns its own
 * document's outcome: a duplicate key is reported to that caller alone (the others of its
 * command are stored), any other failure to every caller of it.
 *
 * Used for outbox markers and for documents inserted without events (document-writes.ts).
 */
import type mongoose from 'mongoose';
import type { Collection } from './stored.js';

const MAX_GROUP = 256;

interface Waiting<D> {
  doc: D;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface RawWriteError {
  index?: unknown;
  code?: unknown;
  errmsg?: unknown;
  keyPattern?: unknown;
  err?: { keyPattern?: unknown };
}

/** The per-document errors of an unordered insert that failed in part, by index in the command. */
function writeErrorsOf(error: unknown): Map<number, unknown> | undefined {
  const raw = (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (raw === undefined) return undefined;
  const list = (Array.isArray(raw) ? raw : [raw]) as RawWriteError[];
  const byIndex = new Map<number, unknown>();
  // The driver's WriteError answers these through getters: read them, do not copy the object.
  for (const writeError of list) {
    if (typeof writeError.index !== 'number') continue;
    const keyPattern = writeError.err?.keyPattern ?? writeError.keyPattern;
    byIndex.set(
      writeError.index,
      Object.assign(new Error(String(writeError.errmsg ?? 'insert failed')), {
        code: writeError.code,
        ...(keyPattern === undefined ? {} : { keyPattern }),
      }),
    );
  }
  return byIndex;
}

export class GroupedInserts<D extends mongoose.mongo.Document & { _id: string }> {
  readonly #docs: () => Collection<D>;
  #waiting: Waiting<D>[] = [];
  #sending = false;

  constructor(docs: () => Collection<D>) {
    this.#docs = docs;
  }

  /** Inserts `doc`; rejects as the insert of it alone would. */
  insert(doc: D): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ doc, resolve, reject });
      if (!this.#sending) void this.#send();
    });
  }

  async #send(): Promise<void> {
    this.#sending = true;
    try {
      while (this.#waiting.length > 0) await this.#sendGroup(this.#waiting.splice(0, MAX_GROUP));
    } finally {
      this.#sending = false;
    }
  }

  async #sendGroup(group: Waiting<D>[]): Promise<void> {
    try {
      // The driver's insert types want an OptionalUnlessRequiredId; our documents carry their id.
      const docs = group.map(({ doc }) => doc) as unknown as Parameters<
        Collection<D>['insertMany']
      >[0];
      if (group.length === 1) await this.#docs().insertOne(docs[0]!);
      else await this.#docs().insertMany(docs, { ordered: false });
      for (const waiting of group) waiting.resolve();
    } catch (error) {
      const failed = group.length === 1 ? undefined : writeErrorsOf(error);
      group.forEach((waiting, index) => {
        if (!failed) waiting.reject(error);
        else if (failed.has(index)) waiting.reject(failed.get(index));
        else waiting.resolve();
      });
    }
  }
}
