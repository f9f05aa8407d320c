import type { IncomingEvent } from '@marquee/platform/bus';
import { ScanResult, type TicketScanned } from '@marquee/proto/entry/v1';
import type { TopPicksApp } from '../../app/top-picks-app.js';

/**
 * `ticket-scanned` → an admitted seat's live resale listing withdrawn. Refused scans, and scans
 * naming no seat, change nothing; anything that fails throws, so the bus retries the record.
 */
export function ticketScannedHandler(app: TopPicksApp) {
  return async (record: IncomingEvent<TicketScanned>): Promise<void> => {
    const scan = record.value;
    if (scan?.result !== ScanResult.SCAN_RESULT_ADMITTED) return;
    if (!scan.eventId || !scan.partnerTicketId) return;
    await app.seatAdmitted(scan.eventId, scan.partnerTicketId);
  };
}
