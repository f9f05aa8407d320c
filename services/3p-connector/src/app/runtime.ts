import {
  PRINT_MESSAGE_MAX_LENGTH,
  PRINT_MESSAGE_MAX_LINES,
  type Booking,
  type Order,
  type Ticket,
} from '@marquee/partner-api';
import { priceTypesOpenedBy } from '../domain/access-codes.js';
import { ConnectorError } from '../domain/errors.js';
import type { ImportedEvent } from '../domain/imported-event.js';
import { releaseAlreadyDone } from '../domain/partner-errors.js';
import type { Partner } from '../domain/partner.js';
import type { CancelQueue } from './cancel-queue.js';
import type {
  AccessCodeCall,
  AvailabilityCall,
  AvailabilityRead,
  BookingCall,
  ConfirmedOrder,
  HeldBooking,
  HeldTicket,
  OrderActionCall,
  OrderActionResult,
  OrderCall,
  OrderQuery,
  OrdersQuery,
  PartnerOrder,
  PartnerOrderStatus,
  ReleaseCall,
} from './connector-calls.js';
import { toAreaAvailability, type Importer } from './importer.js';
import {
  asPartnerFailure,
  type CallFailureRepository,
  type CallOptions,
  type Clock,
  type ImportedEventRepository,
  type Log,
  type PartnerApi,
  type PartnerApiFactory,
  type PartnerRepository,
} from './ports.js';

const STATUSES: ReadonlySet<string> = new Set<PartnerOrderStatus>([
  'BOOKED',
  'RELEASED',
  'EXPIRED',
  'CONFIRMED',
  'PRINTED',
  'CANCELLED',
]);

const OPERATIONS = {
  booking: 'CREATE_BOOKING',
  order: 'CREATE_ORDER',
} as const;

const heldTicket = (ticket: Ticket, currency: string): HeldTicket => ({
  ticketId: ticket.ticket_id,
  areaId: ticket.area_id,
  section: ticket.section_id ?? '',
  row: ticket.row,
  seat: ticket.seat,
  priceLevelId: ticket.price_level_id,
  priceTypeId: ticket.price_type_id,
  price: { amountMinor: Number(ticket.amount), currency },
});

function partnerOrder(order: Order | Booking, imported: ImportedEvent): PartnerOrder {
  const status = order.status.toUpperCase();
  const o = order as Partial<Order> & Booking;
  return {
    partnerId: imported.partnerId,
    eventId: imported.id,
    partnerEventId: order.event_id,
    inventoryToken: order.inventory_token,
    inventoryOrderId: o.inventory_order_id ?? '',
    status: STATUSES.has(status) ? (status as PartnerOrderStatus) : 'UNSPECIFIED',
    cartId: order.external_reference ?? '',
    orderId: o.external_order_id ?? '',
    tickets: order.tickets.map((t) => heldTicket(t, order.currency)),
    ticketsAmount: { amountMinor: Number(order.tickets_amount), currency: order.currency },
    createdAt: new Date(order.created_at),
    updatedAt: o.updated_at ? new Date(o.updated_at) : undefined,
    expiresAt: order.expires_at ? new Date(order.expires_at) : undefined,
  };
}

interface Resolved {
  imported: ImportedEvent;
  partner: Partner;
  api: PartnerApi;
}

const RESOLVE_CACHE_MS = 5_000;
const RESOLVE_CACHE_ENTRIES = 10_000;

/**
 * ConnectorService: the runtime calls of cart and reconciler, addressed by platform event id. A
 * booking or order whose outcome cannot be known (no answer) is reported on `partner-call-failed`
 * (outcome_unknown) before the caller gets UNAVAILABLE / DEADLINE_EXCEEDED.
 */
export class ConnectorRuntime {
  constructor(
    private readonly deps: {
      partners: PartnerRepository;
      events: ImportedEventRepository;
      api: PartnerApiFactory;
      failures: CallFailureRepository;
      cancels: CancelQueue;
      importer: Importer;
      clock: Clock;
      log: Log;
      /**
       * How long an event's imported record and partner are reused by the calls of that event
       * (default 5 s; 0: read on every call). A burst of bookings then reads them once, not twice
       * per call; a changed partner or event shows after at most this long.
       */
      resolveCacheMs?: number;
    },
  ) {}

  /** Per event id: what `resolve` found, until when (ms epoch), or the lookup in progress. */
  #resolved = new Map<string, { until: number; value: Promise<Resolved> }>();

  async resolve(eventId: string): Promise<Resolved> {
    const ttl = this.deps.resolveCacheMs ?? RESOLVE_CACHE_MS;
    if (ttl <= 0) return this.#lookup(eventId);
    const now = Date.now();
    const hit = this.#resolved.get(eventId);
    if (hit && hit.until > now) return hit.value;
    const value = this.#lookup(eventId);
    this.#resolved.delete(eventId);
    this.#resolved.set(eventId, { until: now + ttl, value });
    // Failures are not remembered: the next call asks again.
    value.catch(() => {
      if (this.#resolved.get(eventId)?.value === value) this.#resolved.delete(eventId);
    });
    // Oldest first (Map order): the bound keeps memory flat across many events.
    while (this.#resolved.size > RESOLVE_CACHE_ENTRIES)
      this.#resolved.delete(this.#resolved.keys().next().value!);
    return value;
  }

  async #lookup(eventId: string): Promise<Resolved> {
    const imported = eventId ? await this.deps.events.get(eventId) : undefined;
    if (!imported) throw new ConnectorError('not_found', `event ${eventId} not found`, { eventId });
    const partner = await this.deps.partners.get(imported.partnerId);
    if (!partner)
      throw new ConnectorError('not_found', `partner of event ${eventId} not found`, { eventId });
    return { imported, partner, api: this.deps.api.forPartner(partner) };
  }

  async createBooking(request: BookingCall, options: CallOptions): Promise<HeldBooking> {
    if (!request.cartId)
      throw new ConnectorError('invalid_argument', 'cart_id is required', { field: 'cart_id' });
    if (request.lines.length === 0 || request.lines.some((l) => l.quantity < 1 || !l.priceTypeId))
      throw new ConnectorError(
        'invalid_argument',
        'lines need a price type and a positive quantity',
        {
          field: 'lines',
        },
      );
    const { imported, partner, api } = await this.resolve(request.eventId);
    const body = {
      request: {
        event_id: imported.partnerEventId,
        language: request.language || 'en-us',
        channel_info: { channel_type: request.channelType || 'INTERNET' },
        tickets: request.lines.map((line) => ({
          price_type_id: line.priceTypeId,
          quantity: line.quantity,
          ...(line.areaId ? { area_id: line.areaId } : {}),
          ...(line.priceLevelId ? { price_level_id: line.priceLevelId } : {}),
          ...(line.seatIds.length > 0 ? { seat_ids: line.seatIds } : {}),
          ...(line.accessCode ? { access_code: line.accessCode } : {}),
        })),
        external_reference: request.cartId,
      },
    };
    try {
      const { booking } = await api.createBooking(body, options);
      return {
        inventoryToken: booking.inventory_token,
        expiresAt: new Date(booking.expires_at),
        tickets: booking.tickets.map((t) => heldTicket(t, booking.currency)),
        total: { amountMinor: Number(booking.tickets_amount), currency: booking.currency },
      };
    } catch (error) {
      await this.reportUnknown(error, {
        partner,
        imported,
        operation: OPERATIONS.booking,
        cartId: request.cartId,
        orderId: '',
        inventoryToken: '',
      });
      throw error;
    }
  }

  /**
   * The price types of an event a password opens (the commerce offers' protected offers). The codes
   * stay here, encrypted at rest; the code given is never logged.
   */
  async verifyAccessCode(request: AccessCodeCall): Promise<{ priceTypeIds: string[] }> {
    const imported = request.eventId ? await this.deps.events.get(request.eventId) : undefined;
    if (!imported)
      throw new ConnectorError('not_found', `event ${request.eventId} not found`, {
        eventId: request.eventId,
      });
    return { priceTypeIds: priceTypesOpenedBy(imported.accessCodes, request.code) };
  }

  async releaseBooking(request: ReleaseCall, options: CallOptions): Promise<void> {
    if (!request.inventoryToken)
      throw new ConnectorError('invalid_argument', 'inventory_token is required', {
        field: 'inventory_token',
      });
    const { api } = await this.resolve(request.eventId);
    try {
      await api.releaseBooking(request.inventoryToken, options);
    } catch (error) {
      if (releaseAlreadyDone(asPartnerFailure(error)?.partnerErrorId)) return;
      throw error;
    }
  }

  async createOrder(request: OrderCall, options: CallOptions): Promise<ConfirmedOrder> {
    if (!request.inventoryToken || !request.orderId)
      throw new ConnectorError('invalid_argument', 'inventory_token and order_id are required', {
        field: request.inventoryToken ? 'order_id' : 'inventory_token',
      });
    const { imported, partner, api } = await this.resolve(request.eventId);
    const body = {
      request: {
        inventory_token: request.inventoryToken,
        order_info: {
          tickets_amount: String(request.ticketsAmount?.amountMinor ?? 0),
          tickets_quantity: request.ticketsQuantity,
          external_order_id: request.orderId,
        },
        payment_info: { payment_method_type: request.paymentMethodType || 'UN' },
        delivery_info: { delivery_method_type: request.deliveryMethodType || 'UN' },
        channel_info: { channel_type: request.channelType || 'INTERNET' },
      },
    };
    try {
      const { order } = await api.createOrder(body, options);
      return {
        inventoryOrderId: order.inventory_order_id ?? '',
        tickets: order.tickets.map((t) => heldTicket(t, order.currency)),
      };
    } catch (error) {
      await this.reportUnknown(error, {
        partner,
        imported,
        operation: OPERATIONS.order,
        cartId: '',
        orderId: request.orderId,
        inventoryToken: request.inventoryToken,
      });
      throw error;
    }
  }

  /**
   * Live availability (all areas, or the one of level + section = a partial sync), published on
   * `availability-changed` as read. The answer's `last_modification` is compared with the one the
   * partner reported in its previous availability answer (the imported event's own before the
   * first): newer re-reads the event in the background, once per change. Partners differ in what it
   * dates (partner-reference: its inventory, moved by every sale), so it is never compared with the
   * event's `last_modification`, which would re-read the event on every check after a sale.
   */
  async getAvailability(
    request: AvailabilityCall,
    options: CallOptions,
  ): Promise<AvailabilityRead> {
    if (Boolean(request.levelId) !== Boolean(request.sectionId))
      throw new ConnectorError('invalid_argument', 'level_id and section_id go together', {
        field: request.levelId ? 'section_id' : 'level_id',
      });
    const { imported, api } = await this.resolve(request.eventId);
    const partial = Boolean(request.levelId);
    const answer = await api.getAvailability(
      imported.partnerEventId,
      {
        ...(partial ? { levelId: request.levelId, sectionId: request.sectionId } : {}),
        detail: request.withSeats ? 'seats' : 'overview',
      },
      options,
    );
    const observedAt = this.deps.clock.now();
    const areas = toAreaAvailability(answer.areas);
    const totalAvailable = areas.reduce((sum, a) => sum + a.available, 0);
    const { newer } = await this.deps.events.recordAvailability(
      imported.id,
      (sequence) => ({
        eventId: imported.id,
        partnerId: imported.partnerId,
        partnerEventId: imported.partnerEventId,
        scope: partial ? 'PARTIAL' : 'FULL',
        areas,
        totalAvailable,
        observedAt,
        sequence,
      }),
      new Date(answer.last_modification),
    );
    if (newer) {
      this.deps.log.info(
        { event_id: imported.id },
        'partner availability last_modification moved: re-reading the event',
      );
      this.deps.importer
        .importEvent(imported.id)
        .catch((error: unknown) =>
          this.deps.log.warn({ err: error, event_id: imported.id }, 're-import failed'),
        );
    }
    return { eventId: imported.id, areas, totalAvailable, observedAt };
  }

  async orderAction(request: OrderActionCall, options: CallOptions): Promise<OrderActionResult> {
    const { action } = request;
    if (!action)
      throw new ConnectorError(
        'invalid_argument',
        'action must be PRINT, ROLLBACK_PRINT or CANCEL',
        { field: 'action' },
      );
    if (!request.inventoryOrderId)
      throw new ConnectorError('invalid_argument', 'inventory_order_id is required', {
        field: 'inventory_order_id',
      });
    const printMessages = checkPrintMessages(action, request.printMessages ?? []);
    const { imported, partner, api } = await this.resolve(request.eventId);
    const ticketIds = request.ticketIds ?? [];
    if (ticketIds.length > 0 && action !== 'CANCEL')
      throw new ConnectorError('invalid_argument', 'ticket_ids are for CANCEL only', {
        field: 'ticket_ids',
      });
    if (action === 'CANCEL' && ticketIds.length > 0) {
      // A partial cancel: sent now, never queued. The caller (cart) refuses it when the partner
      // does not take it, before it marks or refunds anything (a 310 comes back as
      // failed_precondition with details.partnerErrorId).
      const answer = await api.orderAction(
        request.inventoryOrderId,
        {
          request: {
            action,
            channel_info: { channel_type: request.channelType || 'INTERNET' },
            ...(request.language ? { language: request.language } : {}),
            tickets: [...ticketIds],
          },
        },
        options,
      );
      return { order: partnerOrder(answer.order, imported), queued: false };
    }
    if (action === 'CANCEL') {
      const outcome = await this.deps.cancels.cancel(
        {
          partnerId: partner.id,
          eventId: imported.id,
          inventoryOrderId: request.inventoryOrderId,
          orderId: request.orderId,
          language: request.language,
          channelType: request.channelType,
        },
        options,
      );
      if (outcome.status === 'queued') return { order: undefined, queued: true };
      return { order: outcome.order && partnerOrder(outcome.order, imported), queued: false };
    }
    const answer = await api.orderAction(
      request.inventoryOrderId,
      {
        request: {
          action,
          channel_info: { channel_type: request.channelType || 'INTERNET' },
          ...(request.language ? { language: request.language } : {}),
          ...(printMessages.length > 0 ? { print_messages: printMessages } : {}),
        },
      },
      options,
    );
    return { order: partnerOrder(answer.order, imported), queued: false };
  }

  async getOrder(request: OrderQuery, options: CallOptions): Promise<{ order: PartnerOrder }> {
    if (!request.inventoryOrderId)
      throw new ConnectorError('invalid_argument', 'inventory_order_id is required', {
        field: 'inventory_order_id',
      });
    const { imported, api } = await this.resolve(request.eventId);
    const { order } = await api.getOrder(request.inventoryOrderId, options);
    return { order: partnerOrder(order, imported) };
  }

  async listOrders(
    request: OrdersQuery,
    options: CallOptions,
  ): Promise<{ orders: PartnerOrder[] }> {
    const { imported, api } = await this.resolve(request.eventId);
    if (request.inventoryToken) {
      const page = await api.listOrders({ inventoryToken: request.inventoryToken }, options);
      return { orders: page.orders.map((o) => partnerOrder(o, imported)) };
    }
    if (!request.startTime || !request.endTime)
      throw new ConnectorError(
        'invalid_argument',
        'inventory_token, or start_time and end_time, are required',
        {
          field: 'start_time',
        },
      );
    const orders: PartnerOrder[] = [];
    for (let page = 0; page < 100; page += 1) {
      const answer = await api.listOrders(
        {
          eventId: imported.partnerEventId,
          start: request.startTime.toISOString(),
          end: request.endTime.toISOString(),
          page,
          size: 500,
        },
        options,
      );
      orders.push(...answer.orders.map((o) => partnerOrder(o, imported)));
      if (answer.orders.length === 0 || page + 1 >= answer.page.total_pages) break;
    }
    return { orders };
  }

  /** `partner-call-failed` with outcome_unknown, through the outbox, for a call that got no answer. */
  private async reportUnknown(
    error: unknown,
    context: {
      partner: Partner;
      imported: ImportedEvent;
      operation: (typeof OPERATIONS)[keyof typeof OPERATIONS];
      cartId: string;
      orderId: string;
      inventoryToken: string;
    },
  ): Promise<void> {
    const failure = asPartnerFailure(error);
    if (!failure?.outcomeUnknown) return;
    this.deps.log.warn(
      {
        partner_id: context.partner.id,
        event_id: context.imported.id,
        operation: context.operation,
      },
      'partner call outcome unknown',
    );
    await this.deps.failures.record({
      partnerId: context.partner.id,
      operation: context.operation,
      cartId: context.cartId,
      orderId: context.orderId,
      eventId: context.imported.id,
      inventoryToken: context.inventoryToken,
      inventoryOrderId: '',
      httpStatus: failure.httpStatus,
      partnerErrorId: failure.partnerErrorId ?? 0,
      message: failure.message,
      attempt: 1,
      willRetry: false,
      outcomeUnknown: true,
      correlationId: failure.correlationId,
      failedAt: this.deps.clock.now(),
    });
  }
}

/**
 * The print messages of an order action, as the 3P API allows them: with PRINT only, at most
 * `PRINT_MESSAGE_MAX_LINES` lines of `PRINT_MESSAGE_MAX_LENGTH` characters. INVALID_ARGUMENT
 * otherwise, before anything reaches the partner.
 */
function checkPrintMessages(action: string, messages: readonly string[]): string[] {
  if (messages.length === 0) return [];
  const invalid = (message: string) =>
    new ConnectorError('invalid_argument', message, { field: 'print_messages' });
  if (action !== 'PRINT') throw invalid('print_messages go with the PRINT action only');
  if (messages.length > PRINT_MESSAGE_MAX_LINES)
    throw invalid(`at most ${PRINT_MESSAGE_MAX_LINES} print messages`);
  if (messages.some((m) => [...m].length > PRINT_MESSAGE_MAX_LENGTH))
    throw invalid(`a print message has at most ${PRINT_MESSAGE_MAX_LENGTH} characters`);
  return [...messages];
}
