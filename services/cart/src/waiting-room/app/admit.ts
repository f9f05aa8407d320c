import { errorKindOf } from '@marquee/platform/kernel';
import { adjustWindow, admissionsDue } from '../domain/admission.js';
import type { WaitingRoomEvent } from '../domain/events.js';
import { abandoned, mayFreeze, rankOf, type QueueTicket } from '../domain/queue.js';
import type { EarlyRanks } from './early-ranks.js';
import type { OnSaleRecord, Stored, WaitingRoomDeps } from './ports.js';

/** Weight of the newest tick in the admission rate the fans' estimates use. */
const RATE_WEIGHT = 0.3;

export type TickOutcome =
  | { kind: 'idle' }
  | { kind: 'not-leader' }
  | { kind: 'frozen'; earlyCount: number }
  | {
      kind: 'admitted';
      admitted: number;
      left: number;
      window: number;
      /** How long each admitted fan waited, from its join or the opening, whichever is later. */
      waitsMs: number[];
    };

/**
 * One tick of an event's admitter. Every replica ticks every event with a queue; one of them at a
 * time holds the event's lease (a compare-and-set on the on-sale) and does the work:
 *
 * 1. once the opening and its grace passed, it freezes the early joiners' order: their sorted
 *    keys are saved first, then `frozenAt` and `earlyCount` in the on-sale;
 * 2. after that, each tick tunes the admission window from what admitted fans' reserves met
 *    (`domain/admission.ts`) and admits the next fans in order, up to the room in the window;
 *    a fan that stopped asking is skipped (EXPIRED, it left); nothing is admitted once the event
 *    sold out.
 *
 * Each admission is its own compare-and-set, so an admitter that lost its lease mid-tick (a
 * pause longer than the lease) admits nobody twice; `admittedThrough` only moves forward.
 */
export class AdmitTick {
  constructor(
    private readonly deps: Pick<
      WaitingRoomDeps,
      'onSales' | 'tickets' | 'clock' | 'probe' | 'settings'
    >,
    private readonly early: EarlyRanks,
    private readonly owner: string,
  ) {}

  async handle(eventId: string): Promise<TickOutcome> {
    const { onSales, clock } = this.deps;
    const found = await onSales.get(eventId);
    if (!found?.queue) return { kind: 'idle' };
    const now = clock.now();
    const lease = found.lease;
    if (lease && lease.owner !== this.owner && lease.until.getTime() > now.getTime())
      return { kind: 'not-leader' };
    const held = await this.#claim(found, now);
    if (!held) return { kind: 'not-leader' };
    if (mayFreeze(held, now)) return this.#freeze(held, now);
    if (!held.frozenAt) return { kind: 'idle' };
    return this.#admit(held, now);
  }

  /** Takes or renews the lease; undefined when another replica won it. */
  async #claim(onSale: Stored<OnSaleRecord>, now: Date): Promise<Stored<OnSaleRecord> | undefined> {
    const { version, ...current } = onSale;
    const until = new Date(now.getTime() + this.deps.settings.leaseMs);
    try {
      return await this.deps.onSales.update(
        { ...current, lease: { owner: this.owner, until } },
        version,
      );
    } catch (error) {
      if (errorKindOf(error) === 'aborted') return undefined;
      throw error;
    }
  }

  async #freeze(onSale: Stored<OnSaleRecord>, now: Date): Promise<TickOutcome> {
    const keys = (await this.deps.tickets.earlyOrderKeys(onSale.eventId)).sort();
    await this.deps.onSales.saveEarlyOrder(onSale.eventId, keys);
    const { version, ...current } = onSale;
    await this.deps.onSales.update(
      { ...current, frozenAt: now, earlyCount: keys.length, tickedAt: now, updatedAt: now },
      version,
      [
        {
          kind: 'queue-opened',
          eventId: onSale.eventId,
          opensAt: onSale.opensAt,
          frozenAt: now,
          earlyCount: keys.length,
        },
      ],
    );
    return { kind: 'frozen', earlyCount: keys.length };
  }

  async #admit(onSale: Stored<OnSaleRecord>, now: Date): Promise<TickOutcome> {
    const { tickets, probe, settings } = this.deps;
    const inFlight = await tickets.countAdmittedSince(
      onSale.eventId,
      new Date(now.getTime() - settings.admissionTtlMs),
    );
    const control = adjustWindow(onSale.control, probe.sample(onSale.eventId), inFlight);
    const due = admissionsDue(control, inFlight, onSale.soldOutAt !== undefined);
    const ranks = await this.early.of(onSale.eventId);
    let admitted = 0;
    let left = 0;
    let through = onSale.admittedThrough;
    const waitsMs: number[] = [];
    if (due > 0) {
      for (const ticket of await tickets.nextWaiting(onSale.eventId, settings.admitBatch)) {
        if (admitted >= due) break;
        const rank = rankOf(ticket, onSale, ranks);
        const outcome = await this.#letThrough(ticket, onSale, rank, now);
        if (outcome === undefined) continue;
        if (outcome === 'left') left += 1;
        else {
          admitted += 1;
          waitsMs.push(outcome);
        }
        through = Math.max(through, rank ?? through);
      }
    }
    await this.#record(onSale, { control, through, admitted, now });
    return { kind: 'admitted', admitted, left, window: control.window, waitsMs };
  }

  /**
   * Admits one waiting fan (resolving its wait in ms, recorded with `queue-admitted`), or skips it
   * as left when it stopped asking; undefined when it was no longer waiting.
   */
  async #letThrough(
    ticket: Stored<QueueTicket>,
    onSale: Stored<OnSaleRecord>,
    rank: number | undefined,
    now: Date,
  ): Promise<number | 'left' | undefined> {
    if (abandoned(ticket, now, this.deps.settings.abandonAfterMs))
      return (await this.#move(ticket, { state: 'EXPIRED' })) ? 'left' : undefined;
    const from = Math.max(ticket.joinedAt.getTime(), onSale.opensAt.getTime());
    const waitedMs = Math.max(0, now.getTime() - from);
    const moved = await this.#move(ticket, { state: 'ADMITTED', admittedAt: now }, [
      {
        kind: 'queue-admitted',
        eventId: ticket.eventId,
        ticketId: ticket.id,
        appId: ticket.appId,
        ...(rank !== undefined ? { rank } : {}),
        admittedAt: now,
        waitedMs,
      },
    ]);
    return moved ? waitedMs : undefined;
  }

  /** Moves one waiting ticket on; false when it was no longer waiting. */
  async #move(
    ticket: Stored<QueueTicket>,
    change: Partial<QueueTicket>,
    happened?: readonly WaitingRoomEvent[],
  ): Promise<boolean> {
    const { version, ...current } = ticket;
    try {
      await this.deps.tickets.update({ ...current, ...change }, version, happened);
      return true;
    } catch (error) {
      if (errorKindOf(error) === 'aborted') return false;
      throw error;
    }
  }

  async #record(
    onSale: Stored<OnSaleRecord>,
    tick: { control: OnSaleRecord['control']; through: number; admitted: number; now: Date },
  ): Promise<void> {
    const { version, ...current } = onSale;
    const seconds = onSale.tickedAt ? (tick.now.getTime() - onSale.tickedAt.getTime()) / 1000 : 0;
    const rate = seconds > 0 ? tick.admitted / seconds : onSale.admissionsPerSecond;
    const admissionsPerSecond = RATE_WEIGHT * rate + (1 - RATE_WEIGHT) * onSale.admissionsPerSecond;
    try {
      await this.deps.onSales.update(
        {
          ...current,
          control: tick.control,
          admittedThrough: tick.through,
          admissionsPerSecond,
          tickedAt: tick.now,
          updatedAt: tick.now,
        },
        version,
      );
    } catch (error) {
      // A concurrent change of the on-sale (its settings, a sell-out): the next tick records.
      if (errorKindOf(error) !== 'aborted') throw error;
    }
  }
}
