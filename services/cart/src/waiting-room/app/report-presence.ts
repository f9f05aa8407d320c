import { invalidInput } from '../../domain/errors.js';
import type { FanPresence, WaitingRoomDeps } from './ports.js';

/** The most fans one report holds (an edge replica sends its most recent ones). */
export const MAX_PRESENCE_REPORT = 50_000;

/**
 * An edge replica's report of the fans of an event whose long polls it holds, each with when it
 * last asked (`ReportQueuePresence`). It replaces the replica's previous report; the admitter
 * counts a fan in it as present (`abandoned`), so a waiting fan far from its turn costs cart no
 * read or write of its own. A time ahead of cart's clock counts as now: a report cannot keep a
 * fan longer than its asking does.
 */
export class ReportPresence {
  constructor(private readonly deps: Pick<WaitingRoomDeps, 'presence' | 'clock'>) {}

  async handle(eventId: string, reporter: string, fans: readonly FanPresence[]): Promise<number> {
    if (fans.length > MAX_PRESENCE_REPORT)
      throw invalidInput(`at most ${MAX_PRESENCE_REPORT} fans in one report`, 'fans');
    const now = this.deps.clock.now();
    const kept = fans.map((fan) => {
      if (!fan.ticketId)
        throw invalidInput('fans.queue_ticket_id is required', 'fans.queue_ticket_id');
      if (!Number.isFinite(fan.seenAtMs) || fan.seenAtMs <= 0)
        throw invalidInput('fans.seen_at_ms must be a time', 'fans.seen_at_ms');
      return { ticketId: fan.ticketId, seenAtMs: Math.min(fan.seenAtMs, now.getTime()) };
    });
    await this.deps.presence.replace(eventId, reporter, now, kept);
    return kept.length;
  }
}
