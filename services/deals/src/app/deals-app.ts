import { DealsError, validateDealFields, type Deal } from '../domain/deal.js';
import { deletedEvent, type DealEvent } from '../domain/deal-event.js';
import {
  validateCriteria,
  type DealSearchCriteria,
  type DealSearchResult,
} from '../domain/search.js';
import type {
  Clock,
  DealEventRepository,
  DealRepository,
  IdGenerator,
  VenueDirectory,
} from './ports.js';
import { DealSearchIndex } from './search-index.js';

export interface NewDeal {
  eventId: string;
  name: string;
  description: string;
  offerCode?: string | undefined;
  exclusivity: string;
}

export interface DealChange {
  name: string;
  description: string;
  offerCode?: string | undefined;
  exclusivity: string;
  /** The version the caller read; 0 or absent = do not check. */
  expectedVersion?: number | undefined;
}

export interface DealsAppDeps {
  deals: DealRepository;
  events: DealEventRepository;
  clock: Clock;
  ids: IdGenerator;
  /** Resolves the coordinates of a venue referenced by discovery id; none = no resolution. */
  venues?: VenueDirectory;
}

/**
 * Whether a projected venue is a discovery id whose position the venue authority may know: not an
 * inline place (which carries its own) and not an unresolved publisher reference (`source:…`, which
 * catalog-indexer knows only by name).
 */
const isResolvableVenue = (venue: DealEvent['venue']): venue is NonNullable<DealEvent['venue']> =>
  venue !== undefined &&
  venue.latitude === undefined &&
  !venue.unresolved &&
  !venue.id.startsWith('place:') &&
  !venue.id.startsWith('source:');

/** The use cases of deals: admin commands, the event projection, and search. */
export class DealsApp {
  private readonly index = new DealSearchIndex();
  /** Events whose venue the directory did not know yet (`venue.unresolved`). */
  private readonly pendingVenues = new Set<string>();
  /** The version of every deal indexed (active or ended): a replayed older state never wins. */
  private readonly dealVersions = new Map<string, number>();

  constructor(private readonly deps: DealsAppDeps) {}

  /** Rebuilds the search index from the repositories; call once before serving. */
  async load(): Promise<void> {
    for (const event of await this.deps.events.list()) {
      this.index.putEvent(event);
      if (event.venue?.unresolved) this.pendingVenues.add(event.id);
    }
    for (const deal of await this.deps.deals.list()) this.indexDeal(deal);
  }

  /** Indexes `deal` unless an equal or newer version of it is indexed; says whether it did. */
  private indexDeal(deal: Deal): boolean {
    if ((this.dealVersions.get(deal.id) ?? 0) >= deal.version) return false;
    this.dealVersions.set(deal.id, deal.version);
    this.index.putDeal(deal);
    return true;
  }

  /**
   * A `deal-changed` state, written by this replica or another one (every replica reads the topic
   * whole): indexed when newer than what this replica holds, so its searches see every replica's
   * deal writes. Resolves whether it changed the index.
   */
  applyDealChange(deal: Deal): boolean {
    return this.indexDeal(deal);
  }

  stats() {
    return this.index.stats();
  }

  async createDeal(input: NewDeal): Promise<Deal> {
    const fields = validateDealFields(input);
    const eventId = input.eventId.trim();
    if (!eventId) throw new DealsError('invalid_argument', 'eventId is required');
    const event = await this.deps.events.get(eventId);
    if (!event || event.deleted) throw new DealsError('not_found', `event ${eventId} is not known`);
    const now = this.deps.clock.now();
    const deal = await this.deps.deals.create({
      id: this.deps.ids.dealId(),
      eventId,
      ...fields,
      state: 'active',
      createdAt: now,
      updatedAt: now,
    });
    this.indexDeal(deal);
    return deal;
  }

  async getDeal(id: string): Promise<Deal> {
    const deal = await this.deps.deals.get(id);
    if (!deal) throw new DealsError('not_found', `deal ${id} is not known`);
    return deal;
  }

  async updateDeal(id: string, change: DealChange): Promise<Deal> {
    const current = await this.getDeal(id);
    if (current.state === 'ended')
      throw new DealsError('failed_precondition', `deal ${id} has ended and cannot change`);
    if (change.expectedVersion && change.expectedVersion !== current.version)
      throw new DealsError(
        'aborted',
        `deal ${id} is at version ${current.version}, not ${change.expectedVersion}`,
      );
    const fields = validateDealFields(change);
    const { version: _version, offerCode: _offerCode, ...rest } = current;
    const updated = await this.deps.deals.update(id, current.version, {
      ...rest,
      ...fields,
      updatedAt: this.deps.clock.now(),
    });
    this.indexDeal(updated);
    return updated;
  }

  /** Ends a deal; ending an ended deal answers it unchanged (idempotent, no new event). */
  async endDeal(id: string): Promise<Deal> {
    const current = await this.getDeal(id);
    if (current.state === 'ended') return current;
    const { version: _version, ...rest } = current;
    const ended = await this.deps.deals.update(id, current.version, {
      ...rest,
      state: 'ended',
      updatedAt: this.deps.clock.now(),
    });
    this.indexDeal(ended);
    return ended;
  }

  search(criteria: DealSearchCriteria): DealSearchResult {
    return this.index.search(validateCriteria(criteria), this.deps.clock.now());
  }

  /**
   * An `event-changed` state; applied only when newer than what is held. A venue referenced by
   * discovery id gets its coordinates from the venue directory (catalog-indexer) first. A venue the
   * directory does not know yet (it has not indexed the event: a race) is stored marked `unresolved`
   * and resolved again by `resolvePendingVenues`; a failing directory (unreachable, deadline) rejects,
   * so the bus retries the record with backoff and nothing is stored.
   */
  async applyEvent(event: DealEvent): Promise<boolean> {
    const resolved = await this.withVenueLocation(event);
    if (!resolved) return false;
    const applied = await this.deps.events.put(resolved);
    if (applied) {
      this.index.putEvent(resolved);
      if (resolved.venue?.unresolved) this.pendingVenues.add(resolved.id);
      else this.pendingVenues.delete(resolved.id);
    }
    return applied;
  }

  /** How many projected events wait for their venue's coordinates. */
  pendingVenueCount(): number {
    return this.pendingVenues.size;
  }

  /**
   * Asks the venue directory again for every event whose venue was not known yet; stores and indexes
   * the coordinates found. Resolves how many events were resolved. Directory errors propagate (the
   * caller retries on its next round).
   */
  async resolvePendingVenues(): Promise<number> {
    const { venues } = this.deps;
    if (!venues) return 0;
    let resolvedCount = 0;
    for (const id of [...this.pendingVenues]) {
      const event = await this.deps.events.get(id);
      if (!event || event.deleted || !event.venue?.unresolved) {
        this.pendingVenues.delete(id);
        continue;
      }
      const location = await venues.locate(event.venue.id);
      if (location === undefined) continue;
      const { unresolved: _pending, ...venue } = event.venue;
      const next = { ...venue, ...(location ?? {}) };
      // A newer state stored meanwhile wins (setVenue refuses); the next round looks at it.
      if (!(await this.deps.events.setVenue(id, event.eventVersion, next))) continue;
      resolvedCount++;
      const stored = await this.deps.events.get(id);
      if (stored && !stored.deleted) this.index.putEvent(stored);
      if (!stored?.venue?.unresolved) this.pendingVenues.delete(id);
    }
    return resolvedCount;
  }

  /** `event` with its venue's coordinates; `undefined` when an equal or newer version is held. */
  private async withVenueLocation(event: DealEvent): Promise<DealEvent | undefined> {
    const { venues } = this.deps;
    if (!venues || !isResolvableVenue(event.venue)) return event;
    const held = await this.deps.events.get(event.id);
    if (held && held.eventVersion >= event.eventVersion) return undefined;
    const location = await venues.locate(event.venue.id);
    if (location === undefined) return { ...event, venue: { ...event.venue, unresolved: true } };
    if (location === null) return event;
    return {
      ...event,
      venue: { ...event.venue, latitude: location.latitude, longitude: location.longitude },
    };
  }

  /**
   * An `event-changed` tombstone, for the projection of this replica. The tombstone carries no
   * version, so the deletion is recorded one past the version held: a redelivered older state can
   * then not bring the event back.
   */
  async deleteEvent(eventId: string): Promise<boolean> {
    const current = await this.deps.events.get(eventId);
    if (!current || current.deleted) return false;
    const applied = await this.deps.events.put(deletedEvent(eventId, current.eventVersion + 1));
    if (applied) this.index.removeEvent(eventId);
    return applied;
  }

  /**
   * An `event-changed` tombstone, for the deals themselves (once for the whole service, by the
   * member of the shared consumer group that owns the partition): every active deal of the event
   * ends, each with its `deal-changed`, since a deal cannot outlive its event. Idempotent: ending an
   * ended deal changes nothing, so a redelivered tombstone ends only what is left.
   */
  async endDealsOfDeletedEvent(eventId: string): Promise<number> {
    let ended = 0;
    for (const deal of await this.deps.deals.listByEvent(eventId)) {
      if (deal.state !== 'active') continue;
      await this.endDeal(deal.id);
      ended++;
    }
    return ended;
  }
}
