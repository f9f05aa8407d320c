import { withoutVersion } from '@marquee/platform/kernel';
import type { ReconciliationCase } from '../../domain/case.js';
import { ReconcilerError } from '../../domain/errors.js';
import type { CaseQuery, CaseRepository } from '../ports.js';

/** One reconciliation case by id (operators). */
export class GetCase {
  constructor(private readonly cases: CaseRepository) {}

  async handle(id: string): Promise<ReconciliationCase> {
    if (!id) throw new ReconcilerError('invalid_argument', 'case id is required');
    const found = await this.cases.get(id);
    if (!found) throw new ReconcilerError('not_found', `no reconciliation case ${id}`);
    return withoutVersion(found);
  }
}

/** A page of reconciliation cases matching a query (operators). */
export class ListCases {
  constructor(private readonly cases: CaseRepository) {}

  async handle(query: CaseQuery): Promise<{ cases: ReconciliationCase[]; total: number }> {
    if (query.offset < 0 || query.limit < 0) {
      throw new ReconcilerError('invalid_argument', 'offset and limit must not be negative');
    }
    return this.cases.list(query);
  }
}
