/**
 * In-process mode: the inserts of outbox markers, grouped. The first marker goes out at once, alone;
 * markers asked for while an insert is on its way wait for it and go together as one `insert`
 * command (unordered, up to `MAX_GROUP`), so concurrent writes of a collection share one command
 * instead of paying one each (on FerretDB a command's cost is mostly per command, not per
 * document). Each caller learns its own marker's outcome: a duplicate key is reported to that
 * caller alone (the others of its command are stored), any other failure to every caller of it.
 */
import type { Collection, PendingMarker } from './stored.js';

const MAX_GROUP = 256;

interface Waiting {
  id: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** The per-document errors of an unordered insert that failed in part, by index in the command. */
function writeErrorsOf(error: unknown): Map<number, unknown> | undefined {
  const raw = (error as { writeErrors?: unknown } | null)?.writeErrors;
  if (raw === undefined) return undefined;
  const list = (Array.isArray(raw) ? raw : [raw]) as {
    index?: unknown;
    code?: unknown;
    errmsg?: unknown;
  }[];
  const byIndex = new Map<number, unknown>();
  // The driver's WriteError answers these through getters: read them, do not copy the object.
  for (const writeError of list)
    if (typeof writeError.index === 'number')
      byIndex.set(
        writeError.index,
        Object.assign(new Error(String(writeError.errmsg ?? 'marker insert failed')), {
          code: writeError.code,
        }),
      );
  return byIndex;
}

export class MarkerInserts {
  readonly #markers: () => Collection<PendingMarker>;
  #waiting: Waiting[] = [];
  #sending = false;

  constructor(markers: () => Collection<PendingMarker>) {
    this.#markers = markers;
  }

  /** Inserts the marker of `id`, due now; rejects as the insert of it alone would. */
  insert(id: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ id, resolve, reject });
      if (!this.#sending) void this.#send();
    });
  }

  async #send(): Promise<void> {
    this.#sending = true;
    try {
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0, MAX_GROUP);
        const dueAt = new Date();
        try {
          if (group.length === 1) await this.#markers().insertOne({ _id: group[0]!.id, dueAt });
          else
            await this.#markers().insertMany(
              group.map(({ id }) => ({ _id: id, dueAt })),
              { ordered: false },
            );
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
    } finally {
      this.#sending = false;
    }
  }
}
