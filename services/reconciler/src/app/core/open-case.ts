/** Opening a case: inserts it, or reopens the stored one of the same transaction. */
import { isWriteRace, retryingConflicts } from '@marquee/platform/kernel';
import { reopenCase, type ReconciliationCase } from '../../domain/case.js';
import type { CaseRepository } from '../ports.js';

export async function openOrReopen(
  cases: CaseRepository,
  fresh: ReconciliationCase,
): Promise<ReconciliationCase> {
  // Another writer inserted or changed the case meanwhile: read it again and reopen that.
  return retryingConflicts(
    async () => {
      const current = await cases.get(fresh.id);
      if (!current) return cases.insert(fresh);
      const next = reopenCase(current, fresh);
      return next ? cases.update(next, current.version) : current;
    },
    { isConflict: isWriteRace },
  );
}
