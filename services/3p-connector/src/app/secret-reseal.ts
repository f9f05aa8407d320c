import { retryingConflicts } from '@marquee/platform/kernel';
import type { EncryptedSecret } from '../domain/partner.js';
import type { Log, SealedRecord, SealedRecordStore, SecretBox } from './ports.js';

/** Records read per page of the walk. */
const PAGE = 200;

/** What a pass did, counted in sealed values (a partner's client secret, an access code). */
export interface ResealCounts {
  /** Opened with another key of the ring (or sealed before key ids) and sealed with the first. */
  resealed: number;
  /** Sealed with the first key already: left as they are. */
  alreadyCurrent: number;
  /** Opened by no key of the ring (logged by record id): left as they are. */
  failed: number;
}

/** The counts of a pass, in all and by collection. */
export interface ResealReport extends ResealCounts {
  collections: Record<string, ResealCounts>;
}

export interface SecretResealDeps {
  stores: readonly SealedRecordStore[];
  secrets: SecretBox;
  log: Log;
}

const zero = (): ResealCounts => ({ resealed: 0, alreadyCurrent: 0, failed: 0 });

function add(into: ResealCounts, counts: ResealCounts): void {
  into.resealed += counts.resealed;
  into.alreadyCurrent += counts.alreadyCurrent;
  into.failed += counts.failed;
}

/**
 * Re-seals every stored partner secret (client secrets, access codes) that the first key of
 * PARTNER_CREDENTIALS_KEY did not seal, so the keys after it can be dropped from the ring
 * (docs/operations.md, "Rotating each secret"). Walks each collection by id; each record is
 * rewritten by a compare-and-set on its version that reads it again after a lost race
 * (`retryingConflicts`), so a concurrent write (an import replacing an event) is never lost, and
 * values another replica re-sealed meanwhile count as current. Idempotent: a second pass finds
 * everything current and writes nothing, so an interrupted pass is resumed by running it again. A
 * value no key opens is counted, logged (collection, record id, key id: never a value) and kept; a
 * store failure ends the pass with the error (the caller runs it again later).
 */
export class SecretReseal {
  constructor(private readonly deps: SecretResealDeps) {}

  /** Id of the key values are re-sealed with. */
  get keyId(): string {
    return this.deps.secrets.keyId;
  }

  async run(): Promise<ResealReport> {
    const report: ResealReport = { ...zero(), collections: {} };
    for (const store of this.deps.stores) {
      const counts = zero();
      for (let after: string | undefined = ''; after !== undefined;) {
        const page = await store.page(after, PAGE);
        for (const record of page) add(counts, await this.#reseal(store, record));
        after = page.length < PAGE ? undefined : page.at(-1)!.id;
      }
      report.collections[store.name] = counts;
      add(report, counts);
    }
    return report;
  }

  /** One record's values re-sealed in one compare-and-set; its counts. */
  async #reseal(store: SealedRecordStore, listed: SealedRecord): Promise<ResealCounts> {
    const { keyId } = this.deps.secrets;
    if (listed.sealed.every((value) => value.kid === keyId))
      return { ...zero(), alreadyCurrent: listed.sealed.length };
    return retryingConflicts(async (attempt) => {
      const counts = zero();
      const record = attempt === 1 ? listed : await store.get(listed.id);
      if (!record) return counts;
      const sealed = record.sealed.map((value, index) => {
        if (value.kid === keyId) {
          counts.alreadyCurrent += 1;
          return value;
        }
        const next = this.#resealValue(value, () => ({ store: store.name, id: record.id, index }));
        counts[next === value ? 'failed' : 'resealed'] += 1;
        return next;
      });
      if (counts.resealed > 0) await store.reseal(record, sealed);
      return counts;
    });
  }

  /** The value sealed with the current key, or itself (logged) when no key of the ring opens it. */
  #resealValue(value: EncryptedSecret, where: () => Record<string, unknown>): EncryptedSecret {
    const { secrets, log } = this.deps;
    let plain: string;
    try {
      plain = secrets.decrypt(value);
    } catch (error) {
      log.warn(
        { ...where(), kid: value.kid ?? null, reason: (error as Error).message },
        'partner secret could not be opened for re-sealing',
      );
      return value;
    }
    return secrets.encrypt(plain);
  }
}
