import type { Cart, HeldTicket } from '../../domain/cart.js';
import { isTransient } from '@marquee/platform/kernel';
import { invalidInput, staleCart } from '../../domain/errors.js';
import { isListingId } from '../../domain/listing-id.js';
import type { FeeSchedule } from '../../domain/pricing.js';
import { hostDown } from '../core/refusals.js';
import type { HeldResaleListing, PartnerBooking, ResaleInventory as Listings } from '../ports.js';
import { listingIdsOf, type Booked, type ConfirmInput, type Inventory } from './inventory.js';

/** The resale lines of a reserve: every `tickets[].id` is a listing id, or none is (else 10002). */
export function resaleLinesOf(
  reserves: readonly { tickets: readonly { priceTypeId: string; quantity: number }[] }[],
): { listingId: string; quantity: number }[] {
  const tickets = reserves.flatMap((r) => r.tickets);
  const resale = tickets.filter((t) => isListingId(t.priceTypeId));
  if (resale.length === 0) return [];
  if (resale.length !== tickets.length)
    throw invalidInput('a reserve takes either resale listings or ticket types, not both');
  return resale.map((t) => ({ listingId: t.priceTypeId, quantity: t.quantity }));
}

/** The cart's held tickets of held listings: one per ticket, at the buyer's price per ticket. */
export function heldTicketsOf(listings: readonly HeldResaleListing[]): HeldTicket[] {
  return listings.flatMap((l) =>
    l.ticketIds.map((ticketId, i) => ({
      ticketId,
      areaId: l.areaId,
      section: l.section,
      row: l.row,
      seat: l.generalAdmission ? '' : (l.seats[i] ?? ''),
      priceLevelId: l.priceLevelId,
      // The listing id stands for the ticket type: the cart shows it as `tickets[].id` (RESALE).
      priceTypeId: l.listingId,
      faceValueMinor: l.unitPrice.amountMinor,
      generalAdmission: l.generalAdmission,
      areaDescription: l.areaId,
      ...(l.details ? { resale: l.details } : {}),
    })),
  );
}

/**
 * Resale listings (the top picks slice): the partner sold these tickets already, to the seller, so
 * a resale cart is held in cart itself, at once when it is reserved, and sold by moving the tickets
 * to the buyer's order. No partner booking: no `booking-*` records, an empty inventory token.
 */
export class ResaleInventory implements Inventory {
  readonly kind = 'resale';

  constructor(private readonly listings: Listings | undefined) {}

  /** Whether resale is sold here at all (the top picks slice is composed in). */
  get available(): boolean {
    return this.listings !== undefined;
  }

  /** Holds the listings of a new cart at once: the booking its HELD state is written with. */
  async hold(
    cart: Cart,
    lines: { listingId: string; quantity: number }[],
    fanSessionId: string,
    fees: FeeSchedule,
  ): Promise<Omit<PartnerBooking, 'tickets'> & { tickets: HeldTicket[]; fees: FeeSchedule }> {
    const held = await this.#listings().holdListings({
      cartId: cart.id,
      appId: cart.appId,
      eventId: cart.eventId,
      fanSessionId,
      lines,
    });
    return {
      inventoryToken: '',
      tickets: heldTicketsOf(held.listings),
      expiresAt: held.expiresAt,
      fees,
    };
  }

  planLines(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  book(): Promise<Booked> {
    // A resale cart is written HELD by its reserve; it is never pending, so never booked later.
    return Promise.reject(new Error('a resale cart is held when it is reserved'));
  }

  async confirm({ cart, orderId }: ConfirmInput) {
    try {
      const resold = await this.#listings().sellListings({
        cartId: cart.id,
        orderId,
        buyer: {
          appId: cart.appId,
          fanId: cart.fanId ?? '',
          thirdPartyAccountId: cart.billing?.thirdPartyAccountId ?? '',
        },
        listingIds: listingIdsOf(cart.requests),
      });
      return { confirmed: { inventoryOrderId: '', resold } };
    } catch (error) {
      if (isTransient(error)) throw hostDown('the resale could not be recorded; retry the commit');
      return {
        refused: staleCart(`the listing is no longer held: ${(error as Error).message}`),
      };
    }
  }

  async release(cart: Cart): Promise<void> {
    if (!this.listings) return;
    await this.listings.releaseListings(cart.id, listingIdsOf(cart.requests));
  }

  #listings(): Listings {
    if (!this.listings)
      throw invalidInput('resale listings are not sold on this prefix', 'tickets');
    return this.listings;
  }
}
