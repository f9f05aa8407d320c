import type { ReserveAdmissionPass, ReserveGate, SoldOutBook } from '../../app/ports.js';
import type { MarkSoldOut } from './mark-sold-out.js';
import type { OnSaleWatch, WaitingRoomClock } from './ports.js';
import type { SpendAdmission } from './spend-admission.js';

/** Records what the reserves of admitted fans met (the probe the admitter samples). */
export interface ReserveRecorder {
  record(eventId: string, latencyMs: number, overloaded: boolean): void;
}

/** Tells the operator's log what the gate could not write (a sell-out it failed to record). */
export interface GateLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * The waiting room in front of cart's partner reserves (cart's `ReserveGate` port):
 *
 * - whether an event's queue is on comes from the watch's shared reads (at most one a poll per
 *   replica), so a reserve of an event without a queue costs no store read of its own;
 * - while it is on, a reserve spends its admission (`SpendAdmission`), or is refused 20070;
 * - each reserve's latency and load refusals feed the admitter's window; once cart's sold-out
 *   book holds the event sold out at any level (a best-available reserve of one ticket refused),
 *   a failed reserve marks the queue sold out, which stops admissions and tells every waiting fan.
 */
export class WaitingRoomGate implements ReserveGate {
  constructor(
    private readonly deps: {
      spend: SpendAdmission;
      soldOut: MarkSoldOut;
      watch: Pick<OnSaleWatch, 'latest'>;
      book: Pick<SoldOutBook, 'isSoldOut'>;
      recorder: ReserveRecorder;
      clock: WaitingRoomClock;
      log: GateLog;
    },
  ) {}

  async enter(pass: ReserveAdmissionPass) {
    if (!(await this.#queued(pass.eventId))) return undefined;
    const { spend, clock } = this.deps;
    const identity = pass.fanId
      ? `fan:${pass.fanId}`
      : pass.deviceId
        ? `device:${pass.deviceId}`
        : '';
    const ticketId = await spend.handle(pass.token, {
      eventId: pass.eventId,
      appId: pass.appId,
      identity,
      now: clock.now(),
    });
    return { giveBack: () => spend.giveBack(ticketId) };
  }

  observe(
    eventId: string,
    outcome: { latencyMs: number; overloaded: boolean; failed: boolean },
  ): void {
    this.deps.recorder.record(eventId, outcome.latencyMs, outcome.overloaded);
    if (!outcome.failed || !this.deps.book.isSoldOut(eventId, [])) return;
    this.deps.soldOut.handle(eventId, true).catch((err: unknown) => {
      this.deps.log.warn(
        { err, event_id: eventId },
        'recording a sell-out failed; the next refusal retries',
      );
    });
  }

  /**
   * Places of the event came back to the partner (a hold released or expired, availability read
   * with places): a queue marked sold out reopens, and its waiting fans read WAITING again.
   */
  placesReturned(eventId: string): void {
    void this.#queued(eventId)
      .then((on) => (on ? this.deps.soldOut.handle(eventId, false) : false))
      .catch((err: unknown) => {
        this.deps.log.warn({ err, event_id: eventId }, 'reopening a sold-out queue failed');
      });
  }

  async #queued(eventId: string): Promise<boolean> {
    return (await this.deps.watch.latest(eventId))?.queue === true;
  }
}
