import { errorKindOf, isWriteRace, retryingConflicts, type Clock } from '@marquee/platform/kernel';
import { effectiveStatus } from '../domain/booking.js';
import { Err, refused } from '../domain/errors.js';
import type { EventRecord } from '../domain/event.js';
import { expiredHolds, settle, type InventoryRecord } from '../domain/inventory.js';
import { bookingReferenceId, type BookingRecord, type TransactionStatus } from '../domain/model.js';
import { InventoryCache } from './inventory-cache.js';
import { KeyedQueue } from './keyed-queue.js';
import { ManifestCache } from './manifest-seats.js';
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

/** Tries of one inventory compare-and-set (one writer: a conflict is rare). */
export const CAS_ATTEMPTS = 5;

/**
 * What the 3P API's use cases share: the repositories, the per-event queue, the manifest and
 * inventory caches, and the steps that keep a booking and its event's inventory consistent.
 *
 * Every change to an event's seats runs in that event's queue (one at a time per event, in this
 * process) and is one compare-and-set of its inventory record; the booking record is the
 * authority on a token's status and the inventory follows it (`settle`). Write order, so that a
 * crash between two writes is repaired by `repair()` at start-up or by the sweeper: a hold writes
 * the inventory first (an orphan hold simply expires), every later transition writes the booking
 * first and then makes the inventory follow.
 */
export class PartnerCore {
  readonly repos: PartnerRepositories;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly timeoutMs: number;
  readonly partialCancel: boolean;
  readonly queue = new KeyedQueue();
  readonly manifests: ManifestCache;
  readonly inventories: InventoryCache;

  constructor(options: PartnerAppOptions) {
    this.repos = options.repositories;
    this.clock = options.clock;
    this.ids = options.ids;
    this.timeoutMs = options.bookingTimeoutMs;
    this.partialCancel = options.partialCancel ?? true;
    this.manifests = new ManifestCache(options.repositories.manifests);
    this.inventories = new InventoryCache(options.repositories.inventories, options.clock);
  }

  async event(eventId: string): Promise<EventRecord> {
    const record = await this.repos.events.get(eventId);
    if (record === undefined) throw refused(Err.INVALID_EVENT_ID, `unknown event ${eventId}`);
    return record;
  }

  async booking(token: string): Promise<BookingRecord> {
    const booking = await this.repos.bookings.get(token);
    if (booking === undefined)
      throw refused(Err.RESERVATION_NOT_FOUND, `no booking with token ${token}`);
    return booking;
  }

  /** Writes a BOOKED booking EXPIRED. */
  expire(booking: BookingRecord, now: Date): Promise<BookingRecord> {
    return this.repos.bookings.update(booking.id, booking.version, {
      ...booking,
      status: 'EXPIRED',
      updatedAt: now,
    });
  }

  /** Expires the holds of an inventory whose time is up: bookings first, then the inventory. */
  async expireDue(inventory: InventoryRecord, now: Date): Promise<InventoryRecord> {
    const tokens = expiredHolds(inventory, now.getTime());
    if (tokens.length === 0) return inventory;
    for (const token of tokens) {
      let booking = await this.repos.bookings.get(token);
      if (booking?.status === 'BOOKED') booking = await this.expire(booking, now);
      settle(inventory, token, booking?.status, now.getTime());
    }
    inventory.updatedAt = now;
    return this.inventories.save(inventory);
  }

  /**
   * The booking as it stands, made consistent: a booking past its time-out is written EXPIRED and
   * the inventory is made to follow the booking's status (repairing an interrupted transition).
   */
  async current(token: string, now: Date): Promise<BookingRecord> {
    let booking = await this.booking(token);
    if (effectiveStatus(booking, now) === 'EXPIRED' && booking.status === 'BOOKED')
      booking = await this.expire(booking, now);
    await this.follow(booking.eventId, booking.id, booking.status, now);
    return booking;
  }

  /** Makes the event's inventory follow a token's status (idempotent). */
  async follow(eventId: string, token: string, status: TransactionStatus, now: Date) {
    await retryingConflicts(
      async () => {
        const inventory = await this.inventories.load(eventId);
        if (inventory === undefined || !settle(inventory, token, status, now.getTime())) return;
        inventory.updatedAt = now;
        await this.inventories.save(inventory);
      },
      { attempts: CAS_ATTEMPTS },
    );
  }

  /** Booking first, then the inventory follows. */
  async transition(
    booking: BookingRecord,
    change: Partial<Omit<BookingRecord, 'id' | 'version'>>,
  ): Promise<BookingRecord> {
    const { version, ...rest } = booking;
    const next = await this.repos.bookings.update(booking.id, version, { ...rest, ...change });
    await this.follow(next.eventId, next.id, next.status, change.updatedAt ?? this.clock.now());
    return next;
  }

  /**
   * Claims a platform reference of the event for a new booking's token, or answers the live booking
   * it already points at. The claim is the pointer's insert, so a first hold for a reference (every
   * hold but a retry) costs one command; a pointer whose booking is gone, over or never written (a
   * refused hold) is moved to the new token.
   */
  async claimReference(
    eventId: string,
    externalReference: string,
    token: string,
    now: Date,
  ): Promise<BookingRecord | undefined> {
    const id = bookingReferenceId(eventId, externalReference);
    const references = this.repos.bookingReferences;
    return retryingConflicts(
      async () => {
        try {
          await references.insert({ id, token });
          return undefined;
        } catch (error) {
          if (errorKindOf(error) !== 'already_exists') throw error;
        }
        const pointer = await references.get(id);
        // No use case removes a pointer; if one was, claim it again (a raced claim is retried).
        if (pointer === undefined) return void (await references.insert({ id, token }));
        const booking = await this.repos.bookings.get(pointer.token);
        if (booking !== undefined && effectiveStatus(booking, now) === 'BOOKED') return booking;
        await references.update(id, pointer.version, { id, token });
        return undefined;
      },
      { attempts: CAS_ATTEMPTS, isConflict: isWriteRace },
    );
  }
}
