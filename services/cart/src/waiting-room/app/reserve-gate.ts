import type { ReserveAdmissionPass, ReserveGate } from '../../app/ports.js';
import type { MarkSoldOut } from './mark-sold-out.js';
import type { WaitingRoomClock } from './ports.js';
import type { SpendAdmission } from './spend-admission.js';

/** How long this replica trusts what it read of an event's queue being on or off. */
export const QUEUE_STATE_TTL_MS = 1_000;

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
 * - whether an event's queue is on is read at most once a second per replica, so a reserve of an
 *   event without a queue costs no store read;
 * - while it is on, a reserve spends its admission (`SpendAdmission`), or is refused 20070;
 * - each reserve's latency and load refusals feed the admitter's window; a best-available reserve
 *   of one ticket refused for lack of inventory marks the event sold out, which stops admissions
 *   and tells every waiting fan.
 */
export class WaitingRoomGate implements ReserveGate {
  readonly #queueOn = new Map<string, { on: boolean; until: number }>();

  constructor(
    private readonly deps: {
      spend: SpendAdmission;
      soldOut: MarkSoldOut;
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
    outcome: { latencyMs: number; overloaded: boolean; soldOut: boolean },
  ): void {
    this.deps.recorder.record(eventId, outcome.latencyMs, outcome.overloaded);
    if (!outcome.soldOut) return;
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

  /** Forgets what it read of the event (after an operator's change on this replica). */
  forget(eventId: string): void {
    this.#queueOn.delete(eventId);
  }

  async #queued(eventId: string): Promise<boolean> {
    const now = this.deps.clock.now().getTime();
    const known = this.#queueOn.get(eventId);
    if (known && known.until > now) return known.on;
    const on = await this.deps.spend.required(eventId);
    this.#queueOn.set(eventId, { on, until: now + QUEUE_STATE_TTL_MS });
    return on;
  }
}
