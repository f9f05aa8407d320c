import {
  ORDERS_DEFAULT_PAGE_SIZE,
  ORDERS_MAX_PAGE_SIZE,
  type AvailabilityAnswer,
  type Booking,
  type BookingRequest,
  type EventAnswer,
  type EventsPage,
  type HealthcheckResult,
  type LogoAnswer,
  type ManifestAnswer,
  type Order,
  type OrderActionAnswer,
  type OrderActionRequest,
  type OrderRequest,
  type OrdersPage,
  type TaxPlanAnswer,
  type TransactionStatus,
} from '@marquee/partner-api';
import {
  checkConfirm,
  checkRelease,
  effectiveStatus,
  nextStatusFor,
  orderIdOf,
  toBookingAnswer,
  toOrder,
  tokenOfOrderId,
} from '../domain/booking.js';
import { Err, invalid, refused } from '../domain/errors.js';
import { isOnSale, pricesAt } from '../domain/event.js';
import {
  applyHold,
  availableIn,
  chooseSeats,
  dropSaleParts,
  expiredHolds,
  findHold,
  settle,
  tokensOf,
  type AllocationPart,
  type InventoryRecord,
  type SeatRequest,
} from '../domain/inventory.js';
import { bookingReferenceId, type BookingRecord, type EventRecord } from '../domain/model.js';
import {
  checkChannel,
  checkDeliveryMethod,
  checkLanguage,
  checkPaymentMethod,
  parseAction,
  parseAmount,
  parseDateTime,
  parseDetail,
  parsePageNumber,
  parsePageSize,
  parseSort,
} from '../domain/validation.js';
import { placesOf, planPartialCancel } from '../domain/partial-cancel.js';
import { InventoryCache } from './inventory-cache.js';
import { KeyedQueue } from './keyed-queue.js';
import { ManifestCache, seatRequestOf, ticketsOf, type CachedManifest } from './manifest-seats.js';
import { errorKindOf, retryingConflicts, type Clock } from '@marquee/platform/kernel';
import type { IdGenerator, PartnerRepositories } from './ports.js';

export interface PartnerAppOptions {
  repositories: PartnerRepositories;
  clock: Clock;
  ids: IdGenerator;
  /** How long a booking holds its seats. */
  bookingTimeoutMs: number;
  /** CANCEL with `tickets` is taken (default); false: refused with 310, whole orders only. */
  partialCancel?: boolean;
}

/** What a drilled healthcheck answers (back office `PUT /admin/v1/healthcheck`). */
export type HealthState = HealthcheckResult;

const MAX_ORDERS_PERIOD_MS = 31 * 24 * 3600 * 1000;
/** Tries of one inventory compare-and-set (one writer: a conflict is rare). */
const CAS_ATTEMPTS = 5;

/**
 * The 3P API's operations. Every change to an event's seats runs in that event's queue (one at a
 * time per event, in this process) and is one compare-and-set of its inventory record; the
 * booking record is the authority on a token's status and the inventory follows it (`settle`).
 *
 * Write order, so that a crash between two writes is repaired by `repair()` at start-up or by the
 * sweeper: a hold writes the inventory first (an orphan hold simply expires), every later
 * transition writes the booking first and then makes the inventory follow.
 */
export class PartnerApp {
  readonly #repos: PartnerRepositories;
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #timeoutMs: number;
  readonly #queue = new KeyedQueue();
  readonly #partialCancel: boolean;
  readonly #manifests: ManifestCache;
  readonly #inventories: InventoryCache;
  #health: HealthState = { id: 0, message: 'OK' };

  constructor(options: PartnerAppOptions) {
    this.#repos = options.repositories;
    this.#clock = options.clock;
    this.#ids = options.ids;
    this.#timeoutMs = options.bookingTimeoutMs;
    this.#partialCancel = options.partialCancel ?? true;
    this.#manifests = new ManifestCache(options.repositories.manifests);
    this.#inventories = new InventoryCache(options.repositories.inventories, options.clock);
  }

  // -------------------------------------------------------------------------------------------
  // Healthcheck

  healthcheck(): HealthcheckResult {
    return { ...this.#health };
  }

  setHealth(state: HealthState): void {
    this.#health = { ...state };
  }

  // -------------------------------------------------------------------------------------------
  // Catalogue reads

  async listEvents(query: {
    venue: string;
    last_modification: string;
    size?: string;
    page?: string;
    sort?: string;
  }): Promise<EventsPage> {
    const since = parseDateTime(query.last_modification, 'last_modification');
    const size = parsePageSize(query.size);
    const page = parsePageNumber(query.page);
    const sort = parseSort(query.sort);
    if ((await this.#repos.venues.get(query.venue)) === undefined)
      throw refused(Err.INVALID_VENUE_ID, `unknown venue ${query.venue}`);
    const filter = { venueId: query.venue, lastModifiedAt: { $gte: since } };
    const [total, records] = await Promise.all([
      this.#repos.events.count(filter),
      this.#repos.events.find(filter, {
        sort: sort === 'NAME,DATE' ? { sortName: 1, startsAt: 1 } : { startsAt: 1, sortName: 1 },
        skip: page * size,
        limit: size,
      }),
    ]);
    return {
      events_info: records.map((record) => ({
        event: record.event,
        status: record.status,
        mod_list: [record.createdAt.getTime() >= since.getTime() ? 'NEW' : 'MODIFIED'],
      })),
      page: { size, total_elements: total, total_pages: Math.ceil(total / size), number: page },
    };
  }

  async getEvent(eventId: string, lastModification: string | undefined): Promise<EventAnswer> {
    parseDateTime(lastModification, 'last_modification');
    const record = await this.#event(eventId);
    return { event: record.event, status: record.status };
  }

  async getManifest(manifestId: string): Promise<ManifestAnswer> {
    const cached = await this.#manifests.get(manifestId);
    return { manifest: cached.record.manifest };
  }

  async getLogo(logoId: string): Promise<LogoAnswer> {
    const logo = await this.#repos.logos.get(logoId);
    if (logo === undefined) throw refused(Err.NOT_PROCESSED, `unknown logo ${logoId}`);
    return { logo: { id: logo.id, format: logo.format, data: logo.data } };
  }

  async getTaxPlan(taxPlanId: string): Promise<TaxPlanAnswer> {
    const plan = await this.#repos.taxPlans.get(taxPlanId);
    if (plan === undefined) throw refused(Err.NOT_PROCESSED, `unknown tax plan ${taxPlanId}`);
    return { tax_plan: { id: plan.id, name: plan.name, rates: plan.rates } };
  }

  // -------------------------------------------------------------------------------------------
  // Availability

  async availability(
    eventId: string,
    query: { level_id?: string; section_id?: string; detail?: string },
  ): Promise<AvailabilityAnswer> {
    if ((query.level_id === undefined) !== (query.section_id === undefined))
      throw invalid(Err.SYNTAX_ERROR, 'give both level_id and section_id, or neither');
    const detail = parseDetail(query.detail);
    const record = await this.#event(eventId);
    const manifest = await this.#manifests.get(record.event.manifest_id);
    let areas = manifest.record.manifest.areas;
    if (query.level_id !== undefined && query.section_id !== undefined) {
      const m = manifest.record.manifest;
      if (!m.levels.some((level) => level.id === query.level_id))
        throw refused(Err.INVALID_LEVEL_ID, `unknown level ${query.level_id}`);
      if (!m.sections.some((section) => section.id === query.section_id))
        throw refused(Err.INVALID_SECTION_ID, `unknown section ${query.section_id}`);
      areas = areas.filter(
        (area) => area.level_id === query.level_id && area.section_id === query.section_id,
      );
      if (areas.length === 0)
        throw refused(Err.INVALID_SECTION_ID, 'no area has this level and section');
    }
    const inventory = await this.#queue.run(eventId, async () =>
      this.#expireDue(
        await this.#inventories.loadOrCreate(record.id, manifest.record.manifest.areas),
        this.#clock.now(),
      ),
    );
    return {
      event_id: eventId,
      last_modification: inventory.updatedAt.toISOString(),
      areas: areas.map((area) => {
        const index = manifest.areaIndex.get(area.id)!;
        const stock = inventory.areas[index]!;
        const available = availableIn(stock);
        return {
          area_id: area.id,
          ...(area.level_id !== undefined ? { level_id: area.level_id } : {}),
          ...(area.section_id !== undefined ? { section_id: area.section_id } : {}),
          price_level_id: area.price_level_id,
          general_admission: area.general_admission,
          available,
          unavailable: stock.capacity - available,
          ...(detail === 'seats' && !area.general_admission
            ? {
                available_seats: (area.seats ?? []).filter((_, i) => stock.seats[i] === '.'),
              }
            : {}),
        };
      }),
    };
  }

  // -------------------------------------------------------------------------------------------
  // Bookings

  /** POST /bookings: a new hold (`created`), or the live booking of the same external reference. */
  async book(request: BookingRequest['request']): Promise<{ booking: Booking; created: boolean }> {
    checkLanguage(request.language);
    checkChannel(request.channel_info.channel_type);
    checkSeatIds(request.tickets);
    return this.#queue.run(request.event_id, async () => {
      const now = this.#clock.now();
      const record = await this.#event(request.event_id);
      if (request.external_reference !== undefined) {
        const existing = await this.#liveBookingOf(record.id, request.external_reference, now);
        if (existing !== undefined)
          return { booking: toBookingAnswer(existing, now), created: false };
      }
      checkSale(record, request, now);
      const manifest = await this.#manifests.get(record.event.manifest_id);
      const prices = pricesAt(record.event, now);
      const lines = request.tickets.map((line) => seatRequestOf(record, manifest, prices, line));
      const { token, chosen } = await this.#hold(record, manifest, lines, now);
      const tickets = chosen.flatMap((partsOfLine, i) =>
        ticketsOf(token, manifest, prices, request.tickets[i]!.price_type_id, partsOfLine),
      );
      tickets.forEach((ticket, i) => (ticket.ticket_id = `${token}-${i + 1}`));
      const booking: Omit<BookingRecord, 'version'> = {
        id: token,
        eventId: record.id,
        status: 'BOOKED',
        language: request.language,
        channelType: request.channel_info.channel_type,
        ...(request.external_reference !== undefined
          ? { externalReference: request.external_reference }
          : {}),
        createdAt: now,
        updatedAt: now,
        expiresAt: new Date(now.getTime() + this.#timeoutMs),
        currency: record.event.currency,
        ticketsAmount: tickets.reduce((sum, t) => sum + BigInt(t.amount), 0n).toString(),
        ticketsQuantity: tickets.length,
        tickets,
      };
      const stored = await this.#repos.bookings.insert(booking);
      if (request.external_reference !== undefined)
        await this.#pointReference(record.id, request.external_reference, token);
      return { booking: toBookingAnswer(stored, now), created: true };
    });
  }

  /**
   * Chooses the lines' places in the event's inventory and holds them under a new token (the
   * inventory is written first: an orphan hold simply expires). Retries a lost compare-and-set.
   */
  async #hold(
    record: EventRecord,
    manifest: CachedManifest,
    lines: SeatRequest[],
    now: Date,
  ): Promise<{ token: string; chosen: AllocationPart[][] }> {
    return retryingConflicts(
      async () => {
        const inventory = await this.#expireDue(
          await this.#inventories.loadOrCreate(record.id, manifest.record.manifest.areas),
          now,
        );
        const chosen = chooseSeats(inventory, (area) => manifest.rows[area]!, lines);
        const token = this.#ids.token();
        const expiresAt = now.getTime() + this.#timeoutMs;
        applyHold(inventory, { token, expiresAt, parts: chosen.flat() });
        inventory.updatedAt = now;
        await this.#inventories.save(inventory);
        return { token, chosen };
      },
      { attempts: CAS_ATTEMPTS },
    );
  }

  /** DELETE /bookings/{token}. */
  async release(token: string): Promise<Booking> {
    const found = await this.#booking(token);
    return this.#queue.run(found.eventId, async () => {
      const now = this.#clock.now();
      const booking = await this.#current(token, now);
      checkRelease(booking, now);
      const released = await this.#transition(booking, { status: 'RELEASED', updatedAt: now });
      return toBookingAnswer(released, now);
    });
  }

  // -------------------------------------------------------------------------------------------
  // Orders

  /** POST /orders: confirms a live booking (`created`), or repeats an earlier confirmation. */
  async confirm(request: OrderRequest['request']): Promise<{ order: Order; created: boolean }> {
    checkChannel(request.channel_info.channel_type);
    checkLanguage(request.language);
    checkPaymentMethod(request.payment_info.payment_method_type);
    checkDeliveryMethod(request.delivery_info.delivery_method_type);
    const amount = parseAmount(request.order_info.tickets_amount);
    const found = await this.#booking(request.inventory_token);
    return this.#queue.run(found.eventId, async () => {
      const now = this.#clock.now();
      const booking = await this.#current(found.id, now);
      const event = (await this.#event(booking.eventId)).event;
      if (
        event.sales_channels !== undefined &&
        !event.sales_channels.includes(request.channel_info.channel_type)
      )
        throw refused(Err.UNAUTHORIZED_SALES_CHANNEL, 'this channel may not sell the event');
      const externalOrderId = request.order_info.external_order_id;
      if (checkConfirm(booking, now, externalOrderId) === 'repeat')
        return { order: toOrder(booking, now), created: false };
      if (
        amount !== BigInt(booking.ticketsAmount) ||
        request.order_info.tickets_quantity !== booking.ticketsQuantity
      )
        throw refused(
          Err.REQUEST_DOES_NOT_MATCH_ORDER,
          `the booking holds ${booking.ticketsQuantity} tickets for ${booking.ticketsAmount}`,
        );
      const inventory = await this.#inventories.load(booking.eventId);
      if (inventory === undefined || findHold(inventory, booking.id) === undefined)
        throw refused(Err.RESERVATION_EXPIRED, `booking ${booking.id} holds no seats any more`);
      const confirmed = await this.#transition(booking, {
        status: 'CONFIRMED',
        updatedAt: now,
        orderId: orderIdOf(booking.id),
        confirmedAt: now,
        paymentMethodType: request.payment_info.payment_method_type,
        deliveryMethodType: request.delivery_info.delivery_method_type,
        ...(externalOrderId !== undefined ? { externalOrderId } : {}),
      });
      return { order: toOrder(confirmed, now), created: true };
    });
  }

  /** GET /orders/{id}: an order by its id, or any transaction by its inventory token. */
  async getOrder(id: string): Promise<Order> {
    const token = tokenOfOrderId(id) ?? id;
    const booking = await this.#repos.bookings.get(token);
    if (booking === undefined || (token !== id && booking.orderId !== id))
      throw refused(Err.INVALID_ORDER_ID, `unknown order ${id}`);
    return toOrder(booking, this.#clock.now());
  }

  /** POST /orders/{id}: PRINT, ROLLBACK_PRINT or CANCEL. */
  async orderAction(
    id: string,
    request: OrderActionRequest['request'],
  ): Promise<OrderActionAnswer> {
    const action = parseAction(request.action);
    checkChannel(request.channel_info.channel_type);
    checkLanguage(request.language);
    const token = tokenOfOrderId(id);
    const found = token === undefined ? undefined : await this.#repos.bookings.get(token);
    if (found === undefined || found.orderId !== id)
      throw refused(Err.INVALID_ORDER_ID, `unknown order ${id}`);
    return this.#queue.run(found.eventId, async () => {
      const now = this.#clock.now();
      const booking = await this.#current(found.id, now);
      if (action === 'CANCEL' && request.tickets !== undefined)
        return {
          action,
          order: toOrder(await this.#cancelTickets(booking, request.tickets, now), now),
        };
      const status = nextStatusFor(booking, action);
      const changed = await this.#transition(booking, { status, updatedAt: now });
      return { action, order: toOrder(changed, now) };
    });
  }

  /** GET /orders: by inventory token, or an event's transactions of a period, oldest first. */
  async listOrders(query: {
    inventory_token?: string;
    event_id?: string;
    start?: string;
    end?: string;
    size?: string;
    page?: string;
  }): Promise<OrdersPage> {
    const now = this.#clock.now();
    const size = parsePageSize(query.size, {
      size: ORDERS_DEFAULT_PAGE_SIZE,
      max: ORDERS_MAX_PAGE_SIZE,
    });
    const page = parsePageNumber(query.page);
    if (query.inventory_token !== undefined) {
      const booking = await this.#repos.bookings.get(query.inventory_token);
      const orders = booking === undefined || page > 0 ? [] : [toOrder(booking, now)];
      const total = booking === undefined ? 0 : 1;
      return {
        orders,
        page: { size, total_elements: total, total_pages: total, number: page },
      };
    }
    if (query.event_id === undefined || query.start === undefined || query.end === undefined)
      throw invalid(Err.SYNTAX_ERROR, 'give inventory_token, or event_id with start and end');
    const start = parseDateTime(query.start, 'start');
    const end = parseDateTime(query.end, 'end');
    if (!(start < end) || end.getTime() - start.getTime() > MAX_ORDERS_PERIOD_MS)
      throw invalid(
        Err.INVALID_LAST_MODIFICATION,
        'end must follow start, at most 31 days after it',
      );
    await this.#event(query.event_id);
    const filter = { eventId: query.event_id, createdAt: { $gte: start, $lt: end } };
    const [total, records] = await Promise.all([
      this.#repos.bookings.count(filter),
      this.#repos.bookings.find(filter, { sort: { createdAt: 1 }, skip: page * size, limit: size }),
    ]);
    return {
      orders: records.map((record) => toOrder(record, now)),
      page: { size, total_elements: total, total_pages: Math.ceil(total / size), number: page },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Time-out and repair

  /** Expires every hold whose time has come (the sweeper's interval). Returns how many. */
  async sweep(): Promise<number> {
    const now = this.#clock.now();
    const due = await this.#repos.inventories.find({ nextExpiryAt: { $lte: now.getTime() } });
    let expired = 0;
    for (const inventory of due) {
      await this.#queue.run(inventory.eventId, async () => {
        const current = await this.#inventories.load(inventory.id);
        if (current === undefined) return;
        expired += expiredHolds(current, now.getTime()).length;
        await this.#expireDue(current, now);
      });
    }
    return expired;
  }

  /**
   * Start-up repair of what a crash between two writes can leave: every hold and sale of every
   * inventory is made to follow its booking record, and bookings past their time-out are expired.
   * Returns how many inventories changed.
   */
  async repair(): Promise<number> {
    const now = this.#clock.now();
    let repaired = 0;
    for (const { id } of await this.#repos.inventories.find({})) {
      await this.#queue.run(id, async () => {
        this.#inventories.forget(id);
        const inventory = await this.#inventories.load(id);
        if (inventory === undefined) return;
        const tokens = tokensOf(inventory);
        let changed = false;
        for (const token of tokens) {
          let booking = await this.#repos.bookings.get(token);
          if (booking !== undefined && effectiveStatus(booking, now) !== booking.status)
            booking = await this.#repos.bookings.update(booking.id, booking.version, {
              ...booking,
              status: 'EXPIRED',
              updatedAt: now,
            });
          changed = settle(inventory, token, booking?.status, now.getTime()) || changed;
        }
        if (changed) {
          inventory.updatedAt = now;
          await this.#inventories.save(inventory);
          repaired += 1;
        }
      });
    }
    for (const booking of await this.#repos.bookings.find({
      status: 'BOOKED',
      expiresAt: { $lte: now },
    })) {
      await this.#queue.run(booking.eventId, () => this.#current(booking.id, now));
    }
    return repaired;
  }

  // -------------------------------------------------------------------------------------------
  // Internals

  async #event(eventId: string): Promise<EventRecord> {
    const record = await this.#repos.events.get(eventId);
    if (record === undefined) throw refused(Err.INVALID_EVENT_ID, `unknown event ${eventId}`);
    return record;
  }

  async #booking(token: string): Promise<BookingRecord> {
    const booking = await this.#repos.bookings.get(token);
    if (booking === undefined)
      throw refused(Err.RESERVATION_NOT_FOUND, `no booking with token ${token}`);
    return booking;
  }

  /** Expires the holds of an inventory whose time is up: bookings first, then the inventory. */
  async #expireDue(inventory: InventoryRecord, now: Date): Promise<InventoryRecord> {
    const tokens = expiredHolds(inventory, now.getTime());
    if (tokens.length === 0) return inventory;
    for (const token of tokens) {
      let booking = await this.#repos.bookings.get(token);
      if (booking?.status === 'BOOKED')
        booking = await this.#repos.bookings.update(booking.id, booking.version, {
          ...booking,
          status: 'EXPIRED',
          updatedAt: now,
        });
      settle(inventory, token, booking?.status, now.getTime());
    }
    inventory.updatedAt = now;
    return this.#inventories.save(inventory);
  }

  /**
   * The booking as it stands, made consistent: a booking past its time-out is written EXPIRED and
   * the inventory is made to follow the booking's status (repairing an interrupted transition).
   */
  async #current(token: string, now: Date): Promise<BookingRecord> {
    let booking = await this.#booking(token);
    if (effectiveStatus(booking, now) === 'EXPIRED' && booking.status === 'BOOKED')
      booking = await this.#repos.bookings.update(booking.id, booking.version, {
        ...booking,
        status: 'EXPIRED',
        updatedAt: now,
      });
    await this.#follow(booking.eventId, booking.id, booking.status, now);
    return booking;
  }

  async #follow(
    eventId: string,
    token: string,
    status: TransactionStatus,
    now: Date,
  ): Promise<void> {
    await retryingConflicts(
      async () => {
        const inventory = await this.#inventories.load(eventId);
        if (inventory === undefined || !settle(inventory, token, status, now.getTime())) return;
        inventory.updatedAt = now;
        await this.#inventories.save(inventory);
      },
      { attempts: CAS_ATTEMPTS },
    );
  }

  /**
   * CANCEL with `tickets` (domain/partial-cancel.ts): the booking records the cancelled tickets
   * first, then their places leave the sale; every call frees the places of all cancelled tickets
   * again (idempotent), so a retry repairs a crash between the two writes.
   */
  async #cancelTickets(booking: BookingRecord, ticketIds: string[], now: Date) {
    if (!this.#partialCancel)
      throw refused(Err.PARTIAL_REQUESTS_NOT_ALLOWED, 'this partner cancels whole orders only');
    const plan = planPartialCancel(booking, ticketIds);
    if (plan.whole) return this.#transition(booking, { status: 'CANCELLED', updatedAt: now });
    const changed =
      plan.newlyCancelled.length === 0
        ? booking
        : await this.#repos.bookings.update(booking.id, booking.version, {
            ...booking,
            cancelledTicketIds: plan.cancelledTicketIds,
            updatedAt: now,
          });
    const { event } = await this.#event(booking.eventId);
    const manifest = await this.#manifests.get(event.manifest_id);
    const cancelled = booking.tickets.filter((t) => plan.cancelledTicketIds.includes(t.ticket_id));
    const parts = placesOf(cancelled, manifest.areaIndex, manifest.seatIndex);
    await retryingConflicts(
      async () => {
        const inventory = await this.#inventories.load(booking.eventId);
        if (inventory === undefined || !dropSaleParts(inventory, booking.id, parts)) return;
        inventory.updatedAt = now;
        await this.#inventories.save(inventory);
      },
      { attempts: CAS_ATTEMPTS },
    );
    return changed;
  }

  /** Booking first, then the inventory follows. */
  async #transition(
    booking: BookingRecord,
    change: Partial<Omit<BookingRecord, 'id' | 'version'>>,
  ): Promise<BookingRecord> {
    const { version, ...rest } = booking;
    const next = await this.#repos.bookings.update(booking.id, version, { ...rest, ...change });
    await this.#follow(next.eventId, next.id, next.status, change.updatedAt ?? this.#clock.now());
    return next;
  }

  async #liveBookingOf(
    eventId: string,
    externalReference: string,
    now: Date,
  ): Promise<BookingRecord | undefined> {
    const reference = await this.#repos.bookingReferences.get(
      bookingReferenceId(eventId, externalReference),
    );
    if (reference === undefined) return undefined;
    const booking = await this.#repos.bookings.get(reference.token);
    return booking !== undefined && effectiveStatus(booking, now) === 'BOOKED'
      ? booking
      : undefined;
  }

  async #pointReference(eventId: string, externalReference: string, token: string) {
    const id = bookingReferenceId(eventId, externalReference);
    try {
      await this.#repos.bookingReferences.insert({ id, token });
    } catch (error) {
      if (errorKindOf(error) !== 'already_exists') throw error;
      const existing = await this.#repos.bookingReferences.get(id);
      if (existing === undefined) throw error;
      await this.#repos.bookingReferences.update(id, existing.version, { id, token });
    }
  }
}

/** Seats named by id: in one area, as many as the quantity, none twice. */
function checkSeatIds(lines: BookingRequest['request']['tickets']): void {
  for (const line of lines) {
    if (line.seat_ids === undefined) continue;
    if (line.area_id === undefined)
      throw invalid(Err.SYNTAX_ERROR, 'seat_ids need the area_id they are in');
    if (line.seat_ids.length !== line.quantity)
      throw invalid(Err.SYNTAX_ERROR, 'seat_ids must name as many seats as quantity');
    if (new Set(line.seat_ids).size !== line.seat_ids.length)
      throw invalid(Err.SYNTAX_ERROR, 'seat_ids must not repeat a seat');
  }
}

/** The event must be on sale, to this channel, and not for more tickets than it allows at once. */
function checkSale(record: EventRecord, request: BookingRequest['request'], now: Date): void {
  const event = record.event;
  if (!isOnSale(record, now))
    throw refused(Err.EVENT_NOT_AVAILABLE, `event ${record.id} is not on sale`);
  if (
    event.sales_channels !== undefined &&
    !event.sales_channels.includes(request.channel_info.channel_type)
  )
    throw refused(Err.UNAUTHORIZED_SALES_CHANNEL, 'this channel may not sell the event');
  const quantity = request.tickets.reduce((sum, line) => sum + line.quantity, 0);
  if (event.maximum_tickets_quantity > 0 && quantity > event.maximum_tickets_quantity)
    throw refused(
      Err.TICKETS_PER_REQUEST_EXCEEDED,
      `at most ${event.maximum_tickets_quantity} tickets per booking`,
    );
}
