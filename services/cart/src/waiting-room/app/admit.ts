import { errorKindOf } from '@marquee/platform/kernel';
import { adjustWindow, admissionsDue } from '../domain/admission.js';
import type { WaitingRoomEvent } from '../domain/events.js';
import { abandoned, byOrderKey, mayFreeze, rankOf, type QueueTicket } from '../domain/queue.js';
import { AppRooms } from './app-rooms.js';
import { NextFans } from './next-fans.js';
import type { EarlyRanks } from './early-ranks.js';
import type { OnSaleRecord, Stored, WaitingRoomDeps } from './ports.js';

/** Weight of the newest tick in the admission rate the fans' estimates use. */
const RATE_WEIGHT = 0.3;
/**
 * Below one admission an hour the smoothed rate is recorded as not known (0): once admissions
 * stop, the average only decays towards zero and never gets there, and a wait estimated from it
 * grows without bound.
 */
const MIN_KNOWN_RATE = 1 / 3600;

/**
 * How often the admitter reads an event's presence reports at most. A fan asking again at least
 * every 25 s (a long poll's longest wait) is in its replica's next report within 15 s, so the
 * admitter sees it at most about 45 s old, well inside the 90 s after which a fan counts as gone.
 */
const PRESENCE_READ_MS = 5_000;

export type TickOutcome =
  | { kind: 'idle' }
  | { kind: 'not-leader' }
  /**
   * The on-sale changed between this tick's read and its lease write (a sell-out marked, new
   * settings, another replica's claim): nothing done, the next tick reads again.
   */
  | { kind: 'contended' }
  | { kind: 'frozen'; earlyCount: number }
  | {
      kind: 'admitted';
      admitted: number;
      left: number;
      window: number;
      /** Fans held back by their app's quota this tick (each counted once, when marked). */
      heldBack: number;
      /** How long each admitted fan waited, from its join or the opening, whichever is later. */
      waitsMs: number[];
      /** Whether the event is sold out (nobody is due). */
      soldOut: boolean;
    };

/** What one admitting tick has done so far. */
interface Tick {
  onSale: Stored<OnSaleRecord>;
  now: Date;
  ranks: ReadonlyMap<string, number> | undefined;
  rooms: AppRooms;
  tally: { admitted: number; left: number; heldBack: number; waitsMs: number[] };
  /** `admittedThrough` so far: past every fan admitted, skipped or held back. */
  through: number;
  /** Per app, the highest rank of its fans admitted or skipped by this tick. */
  appThrough: Map<string, number>;
  /** The apps that have had fans held back (those `heldBackThrough` follows). */
  heldBackApps: Set<string>;
}

/** The on-sale's `heldBackThrough` after `tick`; undefined while no app held fans back. */
function heldBackThroughOf(tick: Tick): Record<string, number> | undefined {
  if (tick.heldBackApps.size === 0) return undefined;
  const before = tick.onSale.heldBackThrough ?? {};
  return Object.fromEntries(
    [...tick.heldBackApps].map((appId) => [
      appId,
      Math.max(before[appId] ?? 0, tick.appThrough.get(appId) ?? 0),
    ]),
  );
}

/**
 * One tick of an event's admitter. Every replica ticks every event with a queue; one of them at a
 * time holds the event's lease (a compare-and-set on the on-sale) and does the work:
 *
 * 1. once the opening and its grace passed, it freezes the early joiners' order: their sorted
 *    keys are saved first, then `frozenAt` and `earlyCount` in the on-sale;
 * 2. after that, each tick tunes the admission window from what admitted fans' reserves met
 *    (`domain/admission.ts`) and admits the next fans in order, up to the room in the window;
 *    a fan that stopped asking is skipped (EXPIRED, it left); nothing is admitted once the event
 *    sold out;
 * 3. a fan is admitted only while its app has room under its held-ticket quota (`AppRooms`);
 *    otherwise it is held back, keeping its place. Each tick looks at the held-back fans first,
 *    oldest first, and admits those whose app has room now, then at the next fans; a held-back
 *    fan takes no room in the window until admitted.
 *
 * Each admission is its own compare-and-set, so an admitter that lost its lease mid-tick (a
 * pause longer than the lease) admits nobody twice; `admittedThrough` only moves forward.
 */
export class AdmitTick {
  readonly #next: NextFans;
  /** The reported presence per event, as last read (`#presenceOf`). */
  readonly #presence = new Map<string, { seen: ReadonlyMap<string, number>; at: number }>();

  constructor(
    private readonly deps: Pick<
      WaitingRoomDeps,
      'onSales' | 'tickets' | 'presence' | 'clock' | 'probe' | 'settings' | 'holdings'
    >,
    private readonly early: EarlyRanks,
    private readonly owner: string,
  ) {
    this.#next = new NextFans(deps, early);
  }

  async handle(eventId: string): Promise<TickOutcome> {
    const { onSales, clock } = this.deps;
    const found = await onSales.get(eventId);
    if (!found?.queue) return { kind: 'idle' };
    const now = clock.now();
    const lease = found.lease;
    if (lease && lease.owner !== this.owner && lease.until.getTime() > now.getTime())
      return { kind: 'not-leader' };
    const held = await this.#claim(found, now);
    if (!held) return { kind: 'contended' };
    if (mayFreeze(held, now)) return this.#freeze(held, now);
    if (!held.frozenAt) return { kind: 'idle' };
    return this.#admit(held, now);
  }

  /** Takes or renews the lease; undefined when the on-sale changed since it was read. */
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
    const { tickets, probe, settings, holdings } = this.deps;
    const { eventId } = onSale;
    const since = new Date(now.getTime() - settings.admissionTtlMs);
    const inFlight = await tickets.countAdmittedSince(eventId, since);
    const control = adjustWindow(onSale.control, probe.sample(eventId), inFlight);
    const due = admissionsDue(control, inFlight, onSale.soldOutAt !== undefined);
    const tick: Tick = {
      onSale,
      now,
      ranks: await this.early.of(eventId),
      rooms: new AppRooms(holdings, tickets, eventId, since),
      tally: { admitted: 0, left: 0, heldBack: 0, waitsMs: [] },
      through: onSale.admittedThrough,
      appThrough: new Map(),
      heldBackApps: new Set(Object.keys(onSale.heldBackThrough ?? {})),
    };
    const full = this.#next.fullLook(eventId);
    if (due > 0) {
      // Fans held back first (oldest first), so that an app's room goes to its fans in order;
      // then the next fans, whom a held-back fan never keeps from their turn. Without an app
      // known to have fans held back, only a full look asks (a mark whose record was lost).
      const look =
        full || tick.heldBackApps.size > 0
          ? await tickets.nextHeldBack(eventId, settings.admitBatch)
          : [];
      for (const ticket of look) {
        if (tick.tally.admitted >= due) break;
        await this.#take(ticket, tick);
      }
      if (look.length >= settings.admitBatch && tick.tally.admitted < due) {
        const apps = new Set([...tick.heldBackApps, ...look.map((t) => t.appId)]);
        for (const ticket of await this.#heldBackByApp(tick, apps, due))
          if (tick.tally.admitted < due) await this.#take(ticket, tick);
      }
      if (tick.tally.admitted < due)
        for (const ticket of await this.#next.waiting(eventId, {
          through: tick.through,
          earlyCount: onSale.earlyCount,
          due: due - tick.tally.admitted,
          full,
        })) {
          if (tick.tally.admitted >= due) break;
          await this.#take(ticket, tick);
        }
    }
    await this.#record(onSale, {
      control,
      now,
      admitted: tick.tally.admitted,
      through: tick.through,
      heldBackThrough: heldBackThroughOf(tick),
    });
    const { admitted, left, heldBack, waitsMs } = tick.tally;
    return {
      kind: 'admitted',
      admitted,
      left,
      heldBack,
      window: control.window,
      waitsMs,
      soldOut: onSale.soldOutAt !== undefined,
    };
  }

  /**
   * The held-back fans beyond a full look, app by app, oldest first: more fans held back than one
   * look holds (an app at its quota with hundreds of fans) must not keep another app's held-back
   * fans from the room their app has, nor an app's fresh fans go before its older held-back ones.
   * An app whose room is not known yet is read from its oldest held-back fan (its limit); an app
   * without room costs no further query.
   */
  async #heldBackByApp(
    tick: Tick,
    apps: ReadonlySet<string>,
    due: number,
  ): Promise<Stored<QueueTicket>[]> {
    const { tickets, settings } = this.deps;
    const { eventId } = tick.onSale;
    const found: Stored<QueueTicket>[] = [];
    for (const appId of apps) {
      if (tick.rooms.left(appId) === undefined) {
        const [oldest] = await tickets.nextHeldBack(eventId, 1, appId);
        if (oldest) await tick.rooms.hasRoom(oldest);
      }
      const room = Math.min(tick.rooms.left(appId) ?? 0, due - tick.tally.admitted);
      if (room > 0)
        found.push(
          ...(await tickets.nextHeldBack(eventId, Math.min(room, settings.admitBatch), appId)),
        );
    }
    return found.sort(byOrderKey);
  }

  /**
   * Whether the fan of `ticket` left: its `seenAt` is too old and no edge replica reported it
   * asking since. The reports are read only for a fan whose `seenAt` says it left, and at most
   * every {@link PRESENCE_READ_MS} per event.
   */
  async #left(ticket: Stored<QueueTicket>, now: Date): Promise<boolean> {
    const { abandonAfterMs } = this.deps.settings;
    if (!abandoned(ticket, now, abandonAfterMs)) return false;
    const presence = await this.#presenceOf(ticket.eventId, now);
    return abandoned(ticket, now, abandonAfterMs, presence.get(ticket.id));
  }

  /** The event's reported presence, read again once {@link PRESENCE_READ_MS} old. */
  async #presenceOf(eventId: string, now: Date): Promise<ReadonlyMap<string, number>> {
    const cached = this.#presence.get(eventId);
    if (cached && now.getTime() - cached.at < PRESENCE_READ_MS) return cached.seen;
    const since = new Date(now.getTime() - this.deps.settings.abandonAfterMs);
    const seen = await this.deps.presence.seenOf(eventId, since);
    // Events whose queue ended are not asked about again: their reads go.
    for (const [other, { at }] of this.#presence)
      if (now.getTime() - at > 12 * PRESENCE_READ_MS) this.#presence.delete(other);
    this.#presence.set(eventId, { seen, at: now.getTime() });
    return seen;
  }

  /**
   * Takes one waiting fan on: skipped as left when it stopped asking; admitted when its app has
   * room under its quota; otherwise held back (marked once, keeping its place). A fan whose
   * admission lost its race twice is left for the next tick; a limited app is then closed for
   * this one (its fans go in rank order), an unlimited one goes on (`AppRooms.close`).
   */
  async #take(ticket: Stored<QueueTicket>, tick: Tick): Promise<void> {
    const { onSale, now, ranks, rooms, tally } = tick;
    const rank = rankOf(ticket, onSale, ranks);
    const passed = () => {
      tick.through = Math.max(tick.through, rank ?? tick.through);
      if (rank !== undefined)
        tick.appThrough.set(ticket.appId, Math.max(tick.appThrough.get(ticket.appId) ?? 0, rank));
    };
    const { eventId } = onSale;
    if (rooms.isClosed(ticket.appId)) return this.#next.passedBy(eventId, ticket.id);
    if (await this.#left(ticket, now)) {
      // Not moved: its fan asked meanwhile (it is still here); it is looked at next tick.
      if (await this.#move(ticket, { state: 'EXPIRED' })) {
        tally.left += 1;
        passed();
      } else this.#next.passedBy(eventId, ticket.id);
      return;
    }
    if (!(await rooms.hasRoom(ticket))) {
      if (ticket.heldBack) return;
      if (await this.#move(ticket, { heldBack: true })) {
        tally.heldBack += 1;
        tick.heldBackApps.add(ticket.appId);
        tick.through = Math.max(tick.through, rank ?? tick.through);
      }
      return;
    }
    const waitedMs = await this.#letThrough(ticket, onSale, rank, now);
    if (waitedMs === undefined) {
      this.#next.passedBy(eventId, ticket.id);
      return rooms.close(ticket.appId);
    }
    rooms.take(ticket.appId);
    tally.admitted += 1;
    tally.waitsMs.push(waitedMs);
    passed();
  }

  /**
   * Admits one waiting fan, resolving its wait in ms (recorded with `queue-admitted`); undefined
   * when it was no longer waiting.
   */
  async #letThrough(
    ticket: Stored<QueueTicket>,
    onSale: Stored<OnSaleRecord>,
    rank: number | undefined,
    now: Date,
  ): Promise<number | undefined> {
    const from = Math.max(ticket.joinedAt.getTime(), onSale.opensAt.getTime());
    const waitedMs = Math.max(0, now.getTime() - from);
    const admit = (current: Stored<QueueTicket>) =>
      this.#move(current, { state: 'ADMITTED', admittedAt: now }, [
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
    if (await admit(ticket)) return waitedMs;
    // Lost a race, most often with its fan's ask (which writes when it was seen): read it again
    // and admit it if it still waits as it did.
    const again = await this.deps.tickets.get(ticket.id);
    const same = again?.state === 'WAITING' && !again.heldBack === !ticket.heldBack;
    return same && (await admit(again)) ? waitedMs : undefined;
  }

  /** Moves one waiting ticket on; false when it was no longer waiting. */
  async #move(
    ticket: Stored<QueueTicket>,
    change: Partial<QueueTicket>,
    happened?: readonly WaitingRoomEvent[],
  ): Promise<boolean> {
    // A fan held back stays so while it waits; moving on (admitted, left) clears the mark.
    const { version, heldBack: _heldBack, ...current } = ticket;
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
    tick: {
      control: OnSaleRecord['control'];
      through: number;
      heldBackThrough: Record<string, number> | undefined;
      admitted: number;
      now: Date;
    },
  ): Promise<void> {
    const { version, ...current } = onSale;
    const seconds = onSale.tickedAt ? (tick.now.getTime() - onSale.tickedAt.getTime()) / 1000 : 0;
    const rate = seconds > 0 ? tick.admitted / seconds : onSale.admissionsPerSecond;
    const smoothed = RATE_WEIGHT * rate + (1 - RATE_WEIGHT) * onSale.admissionsPerSecond;
    const admissionsPerSecond = smoothed < MIN_KNOWN_RATE ? 0 : smoothed;
    try {
      await this.deps.onSales.update(
        {
          ...current,
          control: tick.control,
          admittedThrough: tick.through,
          ...(tick.heldBackThrough ? { heldBackThrough: tick.heldBackThrough } : {}),
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
