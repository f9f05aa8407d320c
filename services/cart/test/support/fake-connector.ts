import type {
  AvailableSeat,
  LiveArea,
  PartnerBooking,
  PartnerConnector,
} from '../../src/app/ports.js';

interface FakeBooking {
  token: string;
  cartId: string;
  eventId: string;
  quantity: number;
  status: 'BOOKED' | 'RELEASED' | 'CONFIRMED';
  orderId?: string;
  booking: PartnerBooking;
}

/**
 * An in-process stand-in for the connector port (our own port; the real connector and
 * partner-reference run in the cross-service tier, test/integration): one GA area with a
 * capacity, bookings idempotent per cart, orders idempotent per order id, print actions refused
 * as the partner refuses them, switchable outages and a gate that holds bookings back (a slow
 * partner).
 */
export class FakeConnector implements PartnerConnector {
  readonly bookings = new Map<string, FakeBooking>();
  calls = { createBooking: 0, releaseBooking: 0, createOrder: 0, printOrder: 0, cancelTickets: 0 };
  /** Partner ticket ids cancelled by partial cancels. */
  readonly cancelledTickets = new Set<string>();
  /** The partner answers partial cancels with 310 (it cancels whole orders only). */
  wholeOrdersOnly = false;
  /** The partner takes partial cancels but its answer is lost (the caller sees `unavailable`). */
  loseCancelAnswers = false;
  /** The partner's order is cancelled already: partial cancels are answered 315. */
  orderCancelled = false;
  /** Partner order ids printed (PRINT taken, no ROLLBACK_PRINT since). */
  readonly printed = new Set<string>();
  down = false;
  /** Reserved areas: the available seats of A1 it answers when seats are asked for. */
  seats: AvailableSeat[] = [];
  /** The area is general admission (no seats). */
  generalAdmission = false;
  gate: Promise<void> | undefined;
  private next = 0;

  constructor(
    public capacity: number,
    private readonly now: () => Date,
    private readonly holdMs = 600_000,
  ) {}

  held(): number {
    return [...this.bookings.values()]
      .filter((b) => b.status !== 'RELEASED')
      .reduce((s, b) => s + b.quantity, 0);
  }

  async createBooking(
    input: Parameters<PartnerConnector['createBooking']>[0],
  ): Promise<PartnerBooking> {
    this.calls.createBooking += 1;
    if (this.gate) await this.gate;
    if (this.down) throw Object.assign(new Error('partner down'), { kind: 'unavailable' });
    const live = [...this.bookings.values()].find(
      (b) => b.cartId === input.cartId && b.status === 'BOOKED',
    );
    if (live) return live.booking;
    const quantity = input.lines.reduce((s, l) => s + l.quantity, 0);
    if (this.held() + quantity > this.capacity)
      throw Object.assign(new Error('sold out'), { kind: 'resource_exhausted' });
    this.next += 1;
    const token = `tok-${this.next}`;
    let seat = 0;
    const booking: PartnerBooking = {
      inventoryToken: token,
      expiresAt: new Date(this.now().getTime() + this.holdMs),
      tickets: input.lines.flatMap((line) =>
        Array.from({ length: line.quantity }, () => {
          seat += 1;
          return {
            ticketId: `${token}-${seat}`,
            areaId: 'A1',
            section: 'S1',
            row: '1',
            seat: String(this.next * 100 + seat),
            priceLevelId: line.priceLevelId || 'PL1',
            priceTypeId: line.priceTypeId,
            faceValueMinor: 5000,
          };
        }),
      ),
    };
    this.bookings.set(token, {
      token,
      cartId: input.cartId,
      eventId: input.eventId,
      quantity,
      status: 'BOOKED',
      booking,
    });
    return booking;
  }

  async releaseBooking(_eventId: string, token: string): Promise<void> {
    this.calls.releaseBooking += 1;
    if (this.down) throw Object.assign(new Error('partner down'), { kind: 'unavailable' });
    const b = this.bookings.get(token);
    if (b && b.status === 'BOOKED') b.status = 'RELEASED';
  }

  async createOrder(input: Parameters<PartnerConnector['createOrder']>[0]) {
    this.calls.createOrder += 1;
    if (this.down) throw Object.assign(new Error('partner down'), { kind: 'unavailable' });
    const b = this.bookings.get(input.inventoryToken);
    if (!b || b.status === 'RELEASED')
      throw Object.assign(new Error('booking expired'), { kind: 'failed_precondition' });
    if (b.status === 'CONFIRMED' && b.orderId !== input.orderId)
      throw Object.assign(new Error('already confirmed'), { kind: 'failed_precondition' });
    b.status = 'CONFIRMED';
    b.orderId = input.orderId;
    return { inventoryOrderId: `ord-${b.token}` };
  }

  async availability(input: {
    withSeats: boolean;
  }): Promise<{ areas: LiveArea[]; observedAt: Date }> {
    if (this.down) throw Object.assign(new Error('partner down'), { kind: 'unavailable' });
    return {
      observedAt: this.now(),
      areas: [
        {
          areaId: 'A1',
          levelId: 'L1',
          sectionId: 'S1',
          priceLevelId: 'PL1',
          generalAdmission: this.generalAdmission,
          available: this.capacity - this.held(),
          unavailable: this.held(),
          seats: input.withSeats && !this.generalAdmission ? [...this.seats] : [],
        },
      ],
    };
  }

  async cancelTickets(input: Parameters<PartnerConnector['cancelTickets']>[0]): Promise<void> {
    this.calls.cancelTickets += 1;
    if (this.down) throw Object.assign(new Error('partner down'), { kind: 'unavailable' });
    if (this.orderCancelled)
      throw Object.assign(new Error('partner refused (error id 315, HTTP 410)'), {
        kind: 'failed_precondition',
        details: { partnerErrorId: 315 },
      });
    if (this.wholeOrdersOnly)
      throw Object.assign(new Error('partner refused (error id 310, HTTP 400)'), {
        kind: 'failed_precondition',
        details: { partnerErrorId: 310 },
      });
    for (const id of input.ticketIds) this.cancelledTickets.add(id);
    if (this.loseCancelAnswers)
      throw Object.assign(new Error('deadline exceeded'), { kind: 'unavailable' });
  }

  async printOrder(input: Parameters<PartnerConnector['printOrder']>[0]): Promise<void> {
    this.calls.printOrder += 1;
    if (this.down) throw Object.assign(new Error('partner down'), { kind: 'unavailable' });
    const confirmed = [...this.bookings.values()].some(
      (b) => b.status === 'CONFIRMED' && `ord-${b.token}` === input.inventoryOrderId,
    );
    if (!confirmed) throw Object.assign(new Error('unknown order'), { kind: 'not_found' });
    const printed = this.printed.has(input.inventoryOrderId);
    if (input.action === 'PRINT' ? printed : !printed)
      throw Object.assign(
        new Error(
          printed ? 'the order has already been printed' : 'the order has not been printed',
        ),
        { kind: 'failed_precondition' },
      );
    if (input.action === 'PRINT') this.printed.add(input.inventoryOrderId);
    else this.printed.delete(input.inventoryOrderId);
  }
}
