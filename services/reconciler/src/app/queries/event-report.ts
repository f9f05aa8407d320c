import { ReconcilerError } from '../../domain/errors.js';
import type { EventReport } from '../../domain/report.js';
import type { ReportRepository } from '../ports.js';

/** The stored report of an event's last reconciliation (`ReconcileEvents`). */
export class GetEventReport {
  constructor(private readonly reports: ReportRepository) {}

  async handle(eventId: string): Promise<EventReport> {
    if (!eventId) throw new ReconcilerError('invalid_argument', 'event id is required');
    const report = await this.reports.get(eventId);
    if (!report)
      throw new ReconcilerError('not_found', `event ${eventId} has not been reconciled yet`);
    return report;
  }
}
