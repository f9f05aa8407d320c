/** What one reconciliation of an event found: the partner's transactions against the platform's. */
export interface EventReport {
  /** The event id: one (the latest) report per event. */
  id: string;
  eventId: string;
  partnerId: string;
  generatedAt: Date;
  periodStart: Date;
  periodEnd: Date;
  partnerTransactions: number;
  platformTransactions: number;
  matched: number;
  orphansCancelled: number;
  missingAtPartner: number;
  caseIds: string[];
}
