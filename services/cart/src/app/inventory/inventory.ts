import type { BookingLine, Cart, HeldTicket } from '../../domain/cart.js';
import type { CartError } from '../../domain/errors.js';
import { isListingId } from '../../domain/listing-id.js';
import type { SellableEvent } from '../../domain/sellable-event.js';
import type { ShippingOption } from '../../domain/shipping.js';
import type { PartnerBooking, ResoldTicket, Stored } from '../ports.js';

/** A booking made for a claimed cart, with the lines it was made of and the tickets it holds. */
export interface Booked {
  booking: PartnerBooking;
  lines: BookingLine[];
  tickets: HeldTicket[];
}

/** What confirming a paid cart's tickets gave: the partner's order id, the tickets resold. */
export interface Confirmed {
  inventoryOrderId: string;
  resold: ResoldTicket[];
}

export interface ConfirmInput {
  cart: Stored<Cart>;
  orderId: string;
  merchandiseMinor: number;
  delivery: ShippingOption;
}

/**
 * Where a cart's tickets are held, one strategy per kind: the partner (through 3p-connector), the
 * sandbox inventory of the pre-production prefixes, or resale listings (the top picks slice). The
 * use cases ask the cart's kind instead of branching on it.
 */
export interface Inventory {
  readonly kind: 'partner' | 'sandbox' | 'resale';
  /**
   * The booking lines of a pending cart, planned before an attempt claims it (a booking of unknown
   * outcome is found again by them); `undefined` when the kind plans nothing ahead.
   */
  planLines(cart: Cart, event: SellableEvent): Promise<BookingLine[] | undefined>;
  /** Holds the claimed cart's tickets. */
  book(cart: Cart, event: SellableEvent): Promise<Booked>;
  /**
   * Turns the paid cart's hold into a sale. Resolves `refused` when the inventory refuses for good
   * (the hold is gone); throws when the outcome may change on a retry.
   */
  confirm(input: ConfirmInput): Promise<{ confirmed: Confirmed } | { refused: CartError }>;
  /** Gives the ended cart's hold back (idempotent); throws when it could not be given back now. */
  release(cart: Cart): Promise<void>;
}

/** The listing ids a resale cart holds (from its requests); empty for a primary cart. */
export const listingIdsOf = (
  reserves: readonly { tickets: readonly { priceTypeId: string }[] }[],
): string[] =>
  reserves.flatMap((r) => r.tickets.map((t) => t.priceTypeId)).filter((id) => isListingId(id));

/** The three inventories, and which one holds a cart's tickets. */
export class Inventories {
  constructor(
    readonly partner: Inventory,
    readonly sandbox: Inventory,
    readonly resale: Inventory,
  ) {}

  of(cart: Pick<Cart, 'sandbox' | 'requests'>): Inventory {
    if (listingIdsOf(cart.requests).length > 0) return this.resale;
    return cart.sandbox ? this.sandbox : this.partner;
  }
}
