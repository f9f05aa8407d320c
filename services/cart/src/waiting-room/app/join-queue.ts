import { errorKindOf } from '@marquee/platform/kernel';
import { CartError, ErrorCode } from '../../domain/errors.js';
import { queueIdentityOf } from '../domain/identity.js';
import { earlyOrderKey, joinsEarly, lateOrderKey, type QueueTicket } from '../domain/queue.js';
import type { OnSaleRecord, Stored, WaitingRoomDeps } from './ports.js';

export interface JoinInput {
  eventId: string;
  appId: string;
  fanId?: string;
  deviceId?: string;
  /** The app's held-ticket quota (0 = none); absent: cart's default. */
  heldTicketsPerEvent?: number;
}

/** The event's on-sale when it queues fans; not_found otherwise. */
export async function queuedOnSale(
  deps: Pick<WaitingRoomDeps, 'watch'>,
  eventId: string,
): Promise<Stored<OnSaleRecord>> {
  const onSale = await deps.watch.latest(eventId);
  if (!onSale?.queue)
    throw new CartError(
      'not_found',
      ErrorCode.INVALID_CART,
      `event ${eventId} has no waiting room open: reserve directly`,
      { event_id: eventId },
    );
  return onSale;
}

/**
 * Puts a fan in an event's queue (`POST /partners/v1/events/{event_id}/queue`). Before the
 * opening the fan draws a lottery number (its place is decided at the opening); after it, the fan
 * queues in arrival order. One identity of one app holds one place: a repeat, or a join racing
 * another of the same identity, answers the ticket already held (`joined: false`). The ticket
 * keeps the app's held-ticket quota the fan joined with, which the admitter goes by.
 */
export class JoinQueue {
  constructor(
    private readonly deps: Pick<WaitingRoomDeps, 'watch' | 'tickets' | 'clock' | 'ids'>,
  ) {}

  async handle(input: JoinInput): Promise<{ ticket: Stored<QueueTicket>; joined: boolean }> {
    const identity = queueIdentityOf(input);
    const onSale = await queuedOnSale(this.deps, input.eventId);
    const { tickets, ids } = this.deps;
    // The id of the identity's place: a read by id finds a repeat without a query.
    const id = ids.queueTicketId({ eventId: input.eventId, appId: input.appId, identity });
    // Before the opening a join draws no sequence: it inserts straight away, and a repeat is told
    // by the insert's `already_exists` (one write instead of a read and a write). A late join
    // reads first, so that a repeat does not spend a sequence number (a rank nobody holds).
    const now = this.deps.clock.now();
    const early = joinsEarly(onSale, now);
    const held = early ? undefined : await this.#heldBy(id, input, identity);
    if (held) return { ticket: held, joined: false };
    try {
      return {
        ticket: await tickets.insert(await this.#ticket(id, input, identity, { early, now })),
        joined: true,
      };
    } catch (error) {
      if (errorKindOf(error) !== 'already_exists') throw error;
      const raced =
        (await this.#heldBy(id, input, identity)) ??
        (await tickets.findByIdentity(input.eventId, input.appId, identity));
      if (!raced) throw error;
      return { ticket: raced, joined: false };
    }
  }

  async #heldBy(id: string, input: JoinInput, identity: string) {
    const found = await this.deps.tickets.get(id);
    const same =
      found?.eventId === input.eventId &&
      found.appId === input.appId &&
      found.identity === identity;
    return same ? found : undefined;
  }

  async #ticket(
    id: string,
    input: JoinInput,
    identity: string,
    { early, now }: { early: boolean; now: Date },
  ): Promise<QueueTicket> {
    const { ids, tickets } = this.deps;
    const base = {
      id,
      eventId: input.eventId,
      appId: input.appId,
      identity,
      joinedAt: now,
      state: 'WAITING' as const,
      seenAt: now,
      ...(input.heldTicketsPerEvent !== undefined
        ? { heldTicketsPerEvent: input.heldTicketsPerEvent }
        : {}),
    };
    if (early) return { ...base, early: true, orderKey: earlyOrderKey(ids.lottery(), id) };
    const sequence = await tickets.nextSequence(input.eventId, id);
    return { ...base, early: false, sequence, orderKey: lateOrderKey(sequence) };
  }
}
