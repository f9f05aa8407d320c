import { isWriteRace, retryingConflicts } from '@marquee/platform/kernel';
import type { VersionedStore } from '@marquee/platform/store';
import type { AvailabilityChanged, Event } from '@marquee/proto/catalog/v1';
import {
  applyAvailabilityChanged,
  applyEventChanged,
  applyEventDeleted,
  emptyProjection,
  type EventProjection,
} from '../domain/event-projection.js';
import { toAvailabilityUpdate, toProjectedEvent } from './event-projection-messages.js';
import { pricesAt, type EventReader, type SellableEvent } from '../domain/sellable-event.js';

export type EventProjectionDoc = EventProjection & { version: number };

/**
 * The event projection over a versioned store: every change is a read, a pure apply and a
 * compare-and-set, retried when another writer won, so two consumers (or a redelivery racing a newer
 * record) converge on the newest state. The service runs it over a memory store kept durable by
 * `DurableProjection` (`onChange` marks what to write behind).
 */
export class EventProjectionStore implements EventReader {
  constructor(
    private readonly store: VersionedStore<EventProjectionDoc>,
    private readonly now: () => Date = () => new Date(),
    private readonly onChange: (eventId: string) => void = () => undefined,
  ) {}

  async get(eventId: string): Promise<SellableEvent | undefined> {
    const doc = eventId ? await this.store.get(eventId) : undefined;
    if (!doc?.event || doc.removed) return undefined;
    return {
      ...doc.event,
      prices: pricesAt(doc.event.pricePeriods, this.now()),
      areas: doc.areas,
      totalAvailable: doc.areas.reduce((sum, a) => sum + a.available, 0),
      ...(doc.availabilityObservedAt ? { availabilityObservedAt: doc.availabilityObservedAt } : {}),
    };
  }

  /** Applies an `event-changed` state; resolves whether it changed anything. */
  applyEvent(event: Event): Promise<boolean> {
    // Only partner-hosted events are sold here: the others are not stored (a reserve of one
    // answers 90001 like an unknown event), which keeps a replica's catch-up of the whole
    // compacted topic to one read by id per published event.
    const create = event.origin?.kind?.$case === 'partnerImport';
    return this.change(
      event.id,
      (current) => applyEventChanged(current, toProjectedEvent(event)),
      create,
    );
  }

  /** Applies an `event-changed` tombstone. */
  deleteEvent(eventId: string): Promise<boolean> {
    // A tombstone of an event never stored needs no record: a key's records arrive in order.
    return this.change(eventId, applyEventDeleted, false);
  }

  /** Applies an `availability-changed` record. */
  applyAvailability(change: AvailabilityChanged): Promise<boolean> {
    return this.change(change.eventId, (current) =>
      applyAvailabilityChanged(current, toAvailabilityUpdate(change)),
    );
  }

  private async change(
    id: string,
    apply: (current: EventProjection) => EventProjection | undefined,
    create = true,
  ): Promise<boolean> {
    return retryingConflicts(
      async () => {
        const stored = await this.store.get(id);
        if (!stored && !create) return false;
        const { version, ...current } = stored ?? { ...emptyProjection(id), version: 0 };
        const next = apply(current);
        if (!next) return false;
        if (stored) await this.store.update(id, version, { ...next, id });
        else await this.store.insert({ ...next, id });
        this.onChange(id);
        return true;
      },
      { isConflict: isWriteRace },
    );
  }
}
