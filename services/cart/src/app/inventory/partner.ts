import type { BookingLine, Cart, HeldTicket } from '../../domain/cart.js';
import { isTransient } from '@marquee/platform/kernel';
import { CartError, ErrorCode, staleCart } from '../../domain/errors.js';
import {
  areaOfSection,
  bestAvailableLines,
  seatedLines,
  type Reserve,
} from '../../domain/reserve.js';
import type { SellableEvent } from '../../domain/sellable-event.js';
import { deliveryMethodType } from '../../domain/shipping.js';
import type { ReserveAdmission } from '../core/reserve-admission.js';
import { hostDown } from '../core/refusals.js';
import type { PartnerConnector, SecretBox } from '../ports.js';
import type { Booked, ConfirmInput, Inventory } from './inventory.js';

/** Lines as the connector takes them: the access code opened for the call only. */
function openLines(lines: readonly BookingLine[], secrets: SecretBox) {
  return lines.map(({ accessCodeSealed, ...line }) => ({
    ...line,
    accessCode: accessCodeSealed ? secrets.open(accessCodeSealed) : '',
  }));
}

/**
 * Tickets held at the partner through 3p-connector. CreateBooking is idempotent per cart id and
 * CreateOrder per order id, so any attempt may be repeated by a retry, a replica or the sweeper.
 */
export class PartnerInventory implements Inventory {
  readonly kind = 'partner';

  constructor(
    private readonly deps: {
      connector: PartnerConnector;
      secrets: SecretBox;
      admission: ReserveAdmission;
    },
  ) {}

  async planLines(cart: Cart, event: SellableEvent): Promise<BookingLine[]> {
    const lines: BookingLine[] = [];
    for (const reserve of cart.requests) {
      const planned = await this.#plan(reserve, event);
      planned.forEach((line, i) => {
        const sealed = reserve.tickets[i]?.accessCodeSealed;
        lines.push({ ...line, ...(sealed ? { accessCodeSealed: sealed } : {}) });
      });
    }
    return lines;
  }

  async #plan(
    reserve: Reserve,
    event: SellableEvent,
  ): Promise<Omit<BookingLine, 'accessCodeSealed'>[]> {
    const { connector } = this.deps;
    if (!reserve.section) return bestAvailableLines(reserve, event.areas);
    const known = areaOfSection(event.areas, reserve.section);
    const live =
      known ??
      (await connector.availability({ eventId: event.id, withSeats: false })).areas.find(
        (a) => a.sectionId === reserve.section || a.areaId === reserve.section,
      );
    if (!live) {
      if (reserve.acceptBestAvailable) return bestAvailableLines(reserve, event.areas);
      throw new CartError(
        'resource_exhausted',
        ErrorCode.NO_INVENTORY,
        `no section ${reserve.section} in this event`,
      );
    }
    if (live.generalAdmission || !live.levelId || !live.sectionId)
      return bestAvailableLines(reserve, event.areas, live.areaId);
    const answer = await connector.availability({
      eventId: event.id,
      levelId: live.levelId,
      sectionId: live.sectionId,
      withSeats: true,
    });
    const area = answer.areas.find((a) => a.areaId === live.areaId) ?? answer.areas[0];
    return seatedLines(reserve, live, area?.seats ?? []);
  }

  async book(cart: Cart, event: SellableEvent): Promise<Booked> {
    const lines = cart.lines;
    const booking = await this.deps.connector.createBooking({
      eventId: cart.eventId,
      cartId: cart.id,
      lines: openLines(lines, this.deps.secrets),
      language: cart.language,
    });
    const areaName = (id: string) => {
      const area = event.areas.find((a) => a.areaId === id);
      return area ? [area.levelId, area.sectionId].filter(Boolean).join(' ') || id : id;
    };
    const tickets: HeldTicket[] = booking.tickets.map((t) => ({
      ...t,
      generalAdmission: t.seat === '',
      areaDescription: areaName(t.areaId),
    }));
    return { booking, lines, tickets };
  }

  async confirm({ cart, orderId, merchandiseMinor, delivery }: ConfirmInput) {
    try {
      const { inventoryOrderId } = await this.deps.connector.createOrder({
        eventId: cart.eventId,
        inventoryToken: cart.inventoryToken!,
        orderId,
        ticketsAmountMinor: merchandiseMinor,
        currency: cart.currency,
        ticketsQuantity: cart.tickets.length,
        paymentMethodType: 'CARD',
        deliveryMethodType: deliveryMethodType(delivery),
      });
      return { confirmed: { inventoryOrderId, resold: [] } };
    } catch (error) {
      if (isTransient(error))
        throw hostDown('the partner did not confirm the order; retry the commit');
      // The partner refuses for good (the hold is gone).
      return {
        refused: staleCart(
          `the partner refused the order: ${(error as Error).message ?? 'refused'}`,
        ),
      };
    }
  }

  async release(cart: Cart): Promise<void> {
    let token = cart.inventoryToken;
    if (!token && cart.bookingUnknown) {
      // The partner may hold tickets under a token never seen: CreateBooking is idempotent per
      // cart and answers the live booking of the cart (or makes one), which is then released.
      if (cart.lines.length === 0) return;
      try {
        token = (
          await this.deps.connector.createBooking({
            eventId: cart.eventId,
            cartId: cart.id,
            lines: openLines(cart.lines, this.deps.secrets),
            language: cart.language,
          })
        ).inventoryToken;
      } catch (error) {
        if (isTransient(error)) throw error;
        return; // refused: nothing is held for this cart
      }
    }
    if (!token) return;
    await this.deps.connector.releaseBooking(cart.eventId, token);
    // Places went back to the partner: the event may sell again.
    this.deps.admission.placesReturned(cart.eventId);
  }
}
