import type {
  BookingRecord,
  LogoRecord,
  Manifest,
  PageOf,
  TaxPlanRecord,
} from '../domain/model.js';
import type { OrderAction } from '../domain/booking.js';
import type { EventRecord } from '../domain/event.js';
import { book, release } from './bookings.js';
import {
  availability,
  getEvent,
  getLogo,
  getManifest,
  getTaxPlan,
  listEvents,
  type Availability,
  type EventListing,
} from './catalog-reads.js';
import { confirm, getOrder, listOrders, orderAction } from './orders.js';
import { PartnerCore, type PartnerAppOptions } from './partner-core.js';
import type {
  AvailabilityQuery,
  BookingInput,
  ConfirmInput,
  ListEventsQuery,
  OrderActionInput,
  OrdersQuery,
} from './requests.js';
import { repair, sweep } from './upkeep.js';

export type { PartnerAppOptions } from './partner-core.js';

/** What the healthcheck answers: 0 normally, 901 or 902 when drilled (back office). */
export interface HealthState {
  id: number;
  message: string;
  venuesToSync?: string[];
}

/**
 * The 3P API's operations, one method per use case: catalogue reads (catalog-reads.ts), holds
 * (bookings.ts), orders (orders.ts), time-out and repair (upkeep.ts), over what they share
 * (partner-core.ts: the per-event queue, the caches, the booking-decides-inventory-follows steps).
 * Inputs are parsed values and answers domain records; ports/http maps both.
 */
export class PartnerApp {
  readonly #core: PartnerCore;
  #health: HealthState = { id: 0, message: 'OK' };

  constructor(options: PartnerAppOptions) {
    this.#core = new PartnerCore(options);
  }

  healthcheck(): HealthState {
    return { ...this.#health };
  }

  setHealth(state: HealthState): void {
    this.#health = { ...state };
  }

  listEvents(query: ListEventsQuery): Promise<PageOf<EventListing>> {
    return listEvents(this.#core, query);
  }

  getEvent(eventId: string): Promise<EventRecord> {
    return getEvent(this.#core, eventId);
  }

  getManifest(manifestId: string): Promise<Manifest> {
    return getManifest(this.#core, manifestId);
  }

  getLogo(logoId: string): Promise<LogoRecord> {
    return getLogo(this.#core, logoId);
  }

  getTaxPlan(taxPlanId: string): Promise<TaxPlanRecord> {
    return getTaxPlan(this.#core, taxPlanId);
  }

  availability(query: AvailabilityQuery): Promise<Availability> {
    return availability(this.#core, query);
  }

  book(input: BookingInput): Promise<{ booking: BookingRecord; created: boolean }> {
    return book(this.#core, input);
  }

  release(token: string): Promise<BookingRecord> {
    return release(this.#core, token);
  }

  confirm(input: ConfirmInput): Promise<{ order: BookingRecord; created: boolean }> {
    return confirm(this.#core, input);
  }

  getOrder(id: string): Promise<BookingRecord> {
    return getOrder(this.#core, id);
  }

  orderAction(input: OrderActionInput): Promise<{ action: OrderAction; order: BookingRecord }> {
    return orderAction(this.#core, input);
  }

  listOrders(query: OrdersQuery): Promise<PageOf<BookingRecord>> {
    return listOrders(this.#core, query);
  }

  sweep(): Promise<number> {
    return sweep(this.#core);
  }

  repair(): Promise<number> {
    return repair(this.#core);
  }
}
