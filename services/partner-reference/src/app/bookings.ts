import { retryingConflicts } from '@marquee/platform/kernel';
import { asSeenAt, checkRelease } from '../domain/booking.js';
import { Err, refused } from '../domain/errors.js';
import { isOnSale, pricesAt, type EventRecord } from '../domain/event.js';
import {
  applyHold,
  chooseSeats,
  type AllocationPart,
  type SeatRequest,
} from '../domain/inventory.js';
import type { BookingRecord } from '../domain/model.js';
import { seatRequestOf, ticketsOf, type CachedManifest } from './manifest-seats.js';
import { CAS_ATTEMPTS, type PartnerCore } from './partner-core.js';
import type { BookingInput } from './requests.js';

/**
 * POST /bookings: a new hold (`created`), or the live booking of the same external reference.
 * The booking is answered as it stands now.
 */
export async function book(
  core: PartnerCore,
  input: BookingInput,
): Promise<{ booking: BookingRecord; created: boolean }> {
  return core.queue.run(input.eventId, async () => {
    const now = core.clock.now();
    const record = await core.event(input.eventId);
    const token = core.ids.token();
    if (input.externalReference !== undefined) {
      const existing = await core.claimReference(record.id, input.externalReference, token, now);
      if (existing !== undefined) return { booking: asSeenAt(existing, now), created: false };
    }
    checkSale(record, input, now);
    const manifest = await core.manifests.get(record.details.manifestId);
    const prices = pricesAt(record.details, now);
    const lines = input.lines.map((line) => seatRequestOf(record, manifest, prices, line));
    const chosen = await hold(core, record, manifest, lines, token, now);
    const tickets = chosen.flatMap((partsOfLine, i) =>
      ticketsOf(token, manifest, prices, input.lines[i]!.priceTypeId, partsOfLine),
    );
    tickets.forEach((ticket, i) => (ticket.ticketId = `${token}-${i + 1}`));
    const booking: Omit<BookingRecord, 'version'> = {
      id: token,
      eventId: record.id,
      status: 'BOOKED',
      language: input.language,
      channelType: input.channelType,
      ...(input.externalReference !== undefined
        ? { externalReference: input.externalReference }
        : {}),
      createdAt: now,
      updatedAt: now,
      expiresAt: new Date(now.getTime() + core.timeoutMs),
      currency: record.details.currency,
      ticketsAmountMinor: tickets.reduce((sum, t) => sum + t.amountMinor, 0),
      ticketsQuantity: tickets.length,
      tickets,
    };
    const stored = await core.repos.bookings.insert(booking);
    return { booking: asSeenAt(stored, now), created: true };
  });
}

/**
 * Chooses the lines' places in the event's inventory and holds them under the new booking's token
 * (the inventory is written first: an orphan hold simply expires). Retries a lost compare-and-set.
 */
function hold(
  core: PartnerCore,
  record: EventRecord,
  manifest: CachedManifest,
  lines: SeatRequest[],
  token: string,
  now: Date,
): Promise<AllocationPart[][]> {
  return retryingConflicts(
    async () => {
      const inventory = await core.expireDue(
        await core.inventories.loadOrCreate(record.id, manifest.record.manifest.areas),
        now,
      );
      const chosen = chooseSeats(inventory, (area) => manifest.rows[area]!, lines);
      const expiresAt = now.getTime() + core.timeoutMs;
      applyHold(inventory, { token, expiresAt, parts: chosen.flat() });
      inventory.updatedAt = now;
      await core.inventories.save(inventory);
      return chosen;
    },
    { attempts: CAS_ATTEMPTS },
  );
}

/** DELETE /bookings/{token}. */
export async function release(core: PartnerCore, token: string): Promise<BookingRecord> {
  const found = await core.booking(token);
  return core.queue.run(found.eventId, async () => {
    const now = core.clock.now();
    const booking = await core.current(token, now);
    checkRelease(booking, now);
    const released = await core.transition(booking, { status: 'RELEASED', updatedAt: now });
    return asSeenAt(released, now);
  });
}

/** The event must be on sale, to this channel, and not for more tickets than it allows at once. */
function checkSale(record: EventRecord, input: BookingInput, now: Date): void {
  const event = record.details;
  if (!isOnSale(record, now))
    throw refused(Err.EVENT_NOT_AVAILABLE, `event ${record.id} is not on sale`);
  if (event.salesChannels !== undefined && !event.salesChannels.includes(input.channelType))
    throw refused(Err.UNAUTHORIZED_SALES_CHANNEL, 'this channel may not sell the event');
  const quantity = input.lines.reduce((sum, line) => sum + line.quantity, 0);
  if (event.maximumTicketsQuantity > 0 && quantity > event.maximumTicketsQuantity)
    throw refused(
      Err.TICKETS_PER_REQUEST_EXCEEDED,
      `at most ${event.maximumTicketsQuantity} tickets per booking`,
    );
}
