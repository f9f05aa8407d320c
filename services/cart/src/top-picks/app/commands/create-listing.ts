import { isWriteRace, retryingConflicts, withoutVersion } from '@marquee/platform/kernel';
import { TopPicksError, invalid, notFound, precondition } from '../../domain/errors.js';
import { effectiveState, type ResaleListing } from '../../domain/listing.js';
import { ownershipId, type ListingWrites } from '../core/listing-writes.js';
import type { NewListing, TopPicksDeps } from '../types.js';
import type { WithdrawListing } from './withdraw-listing.js';

/** Tickets per listing at most. */
export const MAX_LISTING_TICKETS = 50;

/**
 * Listing tickets of a confirmed order for resale (operators): the listing written after its
 * tickets are claimed for it, undone when a step fails; never a seat a gate has admitted.
 */
export class CreateListing {
  constructor(
    private readonly deps: TopPicksDeps,
    private readonly writes: ListingWrites,
    private readonly withdraw: WithdrawListing,
  ) {}

  async handle(input: NewListing): Promise<ResaleListing> {
    const now = this.deps.clock.now();
    const ticketIds = [...new Set(input.ticketIds)];
    if (ticketIds.length === 0) throw invalid('ticketIds must name at least one ticket');
    if (ticketIds.length !== input.ticketIds.length) throw invalid('ticketIds repeats a ticket');
    if (ticketIds.length > MAX_LISTING_TICKETS)
      throw invalid(`a listing has at most ${MAX_LISTING_TICKETS} tickets`);
    if (!Number.isSafeInteger(input.price.amountMinor) || input.price.amountMinor <= 0)
      throw invalid('price.amount must be a positive integer of minor units');
    const order = await this.deps.orders.getOrder(input.orderId);
    if (!order) throw notFound(`order ${input.orderId} not found`);
    if (!order.confirmed) throw precondition(`order ${order.id} is not confirmed`);
    const tickets = ticketIds.map((id) => {
      const ticket = order.tickets.find((t) => t.ticketId === id);
      if (!ticket) throw precondition(`ticket ${id} is not a ticket of order ${order.id}`);
      return ticket;
    });
    const first = tickets[0]!;
    if (input.price.currency.toUpperCase() !== first.faceValue.currency.toUpperCase())
      throw invalid(`price.currency must be the event's currency ${first.faceValue.currency}`);
    if (tickets.some((t) => t.areaId !== first.areaId || t.row !== first.row))
      throw invalid('the tickets of a listing must be in one area and one row');
    await this.refuseAdmitted(order.eventId, ticketIds);

    const listing: ResaleListing = {
      id: `${order.eventId}.${this.deps.ids.listingKey()}`,
      eventId: order.eventId,
      orderId: order.id,
      ticketIds,
      price: { amountMinor: input.price.amountMinor, currency: first.faceValue.currency },
      faceValue: first.faceValue,
      areaId: first.areaId,
      section: first.section,
      row: first.row,
      seats: tickets
        .map((t) => t.seat)
        .filter((s) => s !== '')
        .sort(new Intl.Collator('en', { numeric: true }).compare),
      generalAdmission: first.generalAdmission,
      priceLevelId: first.priceLevelId,
      priceTypeId: first.priceTypeId,
      sellerAppId: order.appId,
      sellerNotes: input.sellerNotes,
      state: 'LISTED',
      createdAt: now,
      updatedAt: now,
    };
    const claimed: string[] = [];
    try {
      for (const ticketId of ticketIds) {
        await this.claimTicket(listing, ticketId, order, now);
        claimed.push(ticketId);
      }
      await this.deps.listings.insert(listing);
    } catch (error) {
      await Promise.allSettled(
        claimed.map((ticketId) =>
          this.writes.unclaimTicket(listing.eventId, ticketId, listing.id, now),
        ),
      );
      throw error;
    }
    // A seat admitted while the listing was being made: `ticket-scanned` may have been handled
    // before the listing existed, so ask again now that it does, and take it off sale.
    try {
      await this.refuseAdmitted(order.eventId, ticketIds);
    } catch (error) {
      await this.withdraw.forAdmission(listing.id, now);
      throw error;
    }
    return withoutVersion((await this.deps.listings.get(listing.id))!);
  }

  /** FAILED_PRECONDITION (409) when a gate has admitted any of these seats, under any owner. */
  private async refuseAdmitted(eventId: string, ticketIds: readonly string[]): Promise<void> {
    const admitted = await this.deps.admittedSeats.admitted(eventId, ticketIds);
    if (admitted.length > 0) {
      throw new TopPicksError(
        'failed_precondition',
        `ticket ${admitted.join(', ')} was admitted at a gate and cannot be resold`,
        'ticket_admitted',
      );
    }
  }

  /** Makes `listing` the ticket's one claim; refuses a ticket held by another order or already listed. */
  private async claimTicket(
    listing: ResaleListing,
    ticketId: string,
    order: { id: string; appId: string; fanId: string; thirdPartyAccountId: string },
    now: Date,
  ): Promise<void> {
    const id = ownershipId(listing.eventId, ticketId);
    await retryingConflicts(
      async () => {
        const current = await this.deps.ownership.get(id);
        if (!current) {
          await this.deps.ownership.insert({
            id,
            eventId: listing.eventId,
            ticketId,
            orderId: order.id,
            ownerAppId: order.appId,
            ownerFanId: order.fanId,
            thirdPartyAccountId: order.thirdPartyAccountId,
            listingId: listing.id,
            previous: [],
            updatedAt: now,
          });
          return;
        }
        if (current.orderId !== order.id)
          throw precondition(`ticket ${ticketId} now belongs to order ${current.orderId}`);
        if (current.listingId && (await this.claimIsLive(current.listingId, now)))
          throw precondition(`ticket ${ticketId} is already listed (${current.listingId})`);
        await this.deps.ownership.update(
          { ...withoutVersion(current), listingId: listing.id, updatedAt: now },
          current.version,
        );
      },
      { isConflict: isWriteRace },
    );
  }

  /** A claim counts while its listing exists and is listed or held. */
  private async claimIsLive(listingId: string, now: Date): Promise<boolean> {
    const listing = await this.deps.listings.get(listingId);
    if (!listing) return false;
    const state = effectiveState(listing, now);
    return state === 'LISTED' || state === 'HELD';
  }
}
