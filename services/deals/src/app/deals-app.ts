import { DealsError, validateDealFields, type Deal } from '../domain/deal.js';
import { deletedEvent, type DealEvent } from '../domain/deal-event.js';
import {
  validateCriteria,
  type DealSearchCriteria,
  type DealSearchResult,
} from '../domain/search.js';
import type { Clock, DealEventRepository, DealRepository, IdGenerator } from './ports.js';
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
}

/** The use cases of deals: admin commands, the event projection, and search. */
export class DealsApp {
  private readonly index = new DealSearchIndex();

  constructor(private readonly deps: DealsAppDeps) {}

  /** Rebuilds the search index from the repositories; call once before serving. */
  async load(): Promise<void> {
    for (const event of await this.deps.events.list()) this.index.putEvent(event);
    for (const deal of await this.deps.deals.list()) this.index.putDeal(deal);
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
    this.index.putDeal(deal);
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
    this.index.putDeal(updated);
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
    this.index.putDeal(ended);
    return ended;
  }

  search(criteria: DealSearchCriteria): DealSearchResult {
    return this.index.search(validateCriteria(criteria), this.deps.clock.now());
  }

  /** An `event-changed` state; applied only when newer than what is held. */
  async applyEvent(event: DealEvent): Promise<boolean> {
    const applied = await this.deps.events.put(event);
    if (applied) this.index.putEvent(event);
    return applied;
  }

  /**
   * An `event-changed` tombstone. Its active deals end first (each with its `deal-changed`): a deal
   * cannot outlive its event. The tombstone carries no version, so the deletion is recorded one past
   * the version held: a redelivered older state can then not bring the event back. Ending deals
   * before recording the deletion keeps a crash in between safe: the redelivered tombstone ends the rest.
   */
  async deleteEvent(eventId: string): Promise<boolean> {
    const current = await this.deps.events.get(eventId);
    if (!current || current.deleted) return false;
    for (const deal of await this.deps.deals.listByEvent(eventId))
      if (deal.state === 'active') await this.endDeal(deal.id);
    const applied = await this.deps.events.put(deletedEvent(eventId, current.eventVersion + 1));
    if (applied) this.index.removeEvent(eventId);
    return applied;
  }
}
