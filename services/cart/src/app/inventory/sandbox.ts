import type { Cart, HeldTicket } from '../../domain/cart.js';
import { CartError, ErrorCode } from '../../domain/errors.js';
import { faceValueOf, type SellableArea, type SellableEvent } from '../../domain/sellable-event.js';
import type { Clock, SandboxInventory as SandboxStore } from '../ports.js';
import type { Booked, ConfirmInput, Inventory } from './inventory.js';

/** Sandbox areas: the event's last known areas, or one general-admission area per price level. */
export function sandboxAreas(event: SellableEvent): SellableArea[] {
  if (event.areas.length > 0) return event.areas;
  return event.priceLevels.map((level) => ({
    areaId: `SANDBOX-${level.id}`,
    levelId: '',
    sectionId: '',
    priceLevelId: level.id,
    generalAdmission: true,
    available: 0,
    unavailable: 0,
  }));
}

/**
 * The pre-production prefixes' inventory: unlimited places held in cart's own store, never at the
 * partner, for `sandboxHoldSeconds`.
 */
export class SandboxInventory implements Inventory {
  readonly kind = 'sandbox';

  constructor(
    private readonly deps: { sandbox: SandboxStore; clock: Clock; holdSeconds: number },
  ) {}

  planLines(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  async book(cart: Cart, event: SellableEvent): Promise<Booked> {
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + this.deps.holdSeconds * 1000);
    const areas = sandboxAreas(event);
    const lines = cart.requests.flatMap((reserve) =>
      reserve.tickets.map((ticket) => {
        const priced = areas.filter(
          (a) =>
            (!ticket.priceLevelId || a.priceLevelId === ticket.priceLevelId) &&
            faceValueOf(event, a.priceLevelId, ticket.priceTypeId) !== undefined,
        );
        const wanted =
          reserve.areaIds.length > 0
            ? priced.filter((a) => reserve.areaIds.includes(a.areaId))
            : reserve.section
              ? priced.filter(
                  (a) => a.sectionId === reserve.section || a.areaId === reserve.section,
                )
              : priced;
        const candidates = wanted.length > 0 || !reserve.acceptBestAvailable ? wanted : priced;
        return {
          areaIds: candidates.map((a) => a.areaId),
          priceLevelId: ticket.priceLevelId,
          priceTypeId: ticket.priceTypeId,
          quantity: ticket.quantity,
        };
      }),
    );
    if (lines.some((l) => l.areaIds.length === 0))
      throw new CartError(
        'resource_exhausted',
        ErrorCode.NO_INVENTORY,
        'no sandbox inventory matches',
      );
    const held = await this.deps.sandbox.hold({
      eventId: event.id,
      cartId: cart.id,
      lines,
      areas,
      expiresAt,
      now,
    });
    const tickets: HeldTicket[] = held.map((t) => ({
      ...t,
      faceValueMinor: faceValueOf(event, t.priceLevelId, t.priceTypeId) ?? 0,
      areaDescription: t.areaId,
    }));
    return {
      booking: { inventoryToken: `sandbox-${cart.id}`, expiresAt, tickets },
      lines: lines.map((l) => ({
        areaId: '',
        priceLevelId: l.priceLevelId,
        priceTypeId: l.priceTypeId,
        quantity: l.quantity,
        seatIds: [],
      })),
      tickets,
    };
  }

  async confirm({ cart }: ConfirmInput) {
    await this.deps.sandbox.sell(cart.eventId, cart.id);
    return { confirmed: { inventoryOrderId: '', resold: [] } };
  }

  async release(cart: Cart): Promise<void> {
    await this.deps.sandbox.release(cart.eventId, cart.id);
  }
}
