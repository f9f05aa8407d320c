import { eventRuleProblems, type EventListItem, type Manifest } from '@marquee/partner-api';
import { errorKindOf, isWriteRace, retryingConflicts } from '@marquee/platform/kernel';
import { ConnectorError } from '../domain/errors.js';
import { accessCodesOf, referencedResources, toDiscoveryEvent } from '../domain/event-mapping.js';
import type { AreaAvailability } from '../domain/availability.js';
import type { ImportedEvent } from '../domain/imported-event.js';
import type { Partner } from '../domain/partner.js';
import type {
  Clock,
  Ids,
  ImportedEventRepository,
  ImportMetrics,
  Log,
  PartnerApi,
  PartnerApiFactory,
  PartnerRepository,
  ResourceRepository,
  VenueImportRepository,
} from './ports.js';
import { initialVenueState, type ImportTrigger } from './registry.js';

export const PAGE_SIZE = 100;

export interface VenueImportResult {
  venueId: string;
  /** Events created or changed. */
  changed: number;
  error?: string;
}

/** Turns a partner availability answer into what `availability-changed` carries. */
export function toAreaAvailability(
  areas: readonly {
    area_id: string;
    level_id?: string | undefined;
    section_id?: string | undefined;
    price_level_id: string;
    general_admission: boolean;
    available: number;
    unavailable: number;
    available_seats?: readonly { id: string; row: string; number: string }[] | undefined;
  }[],
): AreaAvailability[] {
  return areas.map((a) => ({
    areaId: a.area_id,
    levelId: a.level_id ?? '',
    sectionId: a.section_id ?? '',
    priceLevelId: a.price_level_id,
    generalAdmission: a.general_admission,
    available: a.available,
    unavailable: a.unavailable,
    availableSeats: (a.available_seats ?? []).map((s) => ({
      id: s.id,
      row: s.row,
      number: s.number,
    })),
  }));
}

/**
 * The import (partner events → discovery events): per partner and venue, every page of
 * `GET /events` modified since the venue's watermark; each new or changed event gets (once) a
 * platform id, its manifest, logos and tax plans when unknown, a new version on `event-changed`,
 * then a full availability sync. Imports of one partner venue never overlap: a request during a
 * run makes the run go once more instead.
 */
export class Importer implements ImportTrigger {
  private readonly running = new Map<
    string,
    { again: boolean; done: Promise<VenueImportResult> }
  >();

  constructor(
    private readonly deps: {
      partners: PartnerRepository;
      venueImports: VenueImportRepository;
      events: ImportedEventRepository;
      resources: ResourceRepository;
      api: PartnerApiFactory;
      ids: Ids;
      clock: Clock;
      log: Log;
      metrics: ImportMetrics;
    },
  ) {}

  /** Background form (RegisterPartner, StartImport, schedules, healthcheck 902). */
  importVenues(partnerId: string, venues: readonly string[]): void {
    for (const venue of venues) {
      this.importVenue(partnerId, venue).catch((error: unknown) =>
        this.deps.log.error(
          { err: error, partner_id: partnerId, venue_id: venue },
          'import failed',
        ),
      );
    }
  }

  /** One venue, single-flight per partner + venue (a call during a run runs it once more after). */
  importVenue(partnerId: string, venueId: string): Promise<VenueImportResult> {
    const key = `${partnerId}/${venueId}`;
    const current = this.running.get(key);
    if (current) {
      current.again = true;
      return current.done;
    }
    const state = {
      again: false,
      done: Promise.resolve<VenueImportResult>({ venueId, changed: 0 }),
    };
    state.done = (async () => {
      try {
        let result: VenueImportResult;
        do {
          state.again = false;
          result = await this.runVenue(partnerId, venueId);
        } while (state.again);
        return result;
      } finally {
        this.running.delete(key);
      }
    })();
    this.running.set(key, state);
    return state.done;
  }

  /** Whether an import of the partner venue is running now. */
  isRunning(partnerId: string, venueId: string): boolean {
    return this.running.has(`${partnerId}/${venueId}`);
  }

  /**
   * Re-imports one event (`GET /events/{id}?last_modification=`), e.g. when an availability answer
   * shows a newer `last_modification` than the imported one.
   */
  async importEvent(eventId: string): Promise<boolean> {
    const imported = await this.deps.events.get(eventId);
    if (!imported) throw new ConnectorError('not_found', `event ${eventId} not found`);
    const partner = await this.partner(imported.partnerId);
    const api = this.deps.api.forPartner(partner);
    const answer = await api.getEvent(
      imported.partnerEventId,
      imported.lastModification.toISOString(),
    );
    return this.applyEvent(partner, api, imported.partnerVenueId, {
      event: answer.event,
      status: answer.status ?? imported.partnerStatus,
      mod_list: [],
    });
  }

  private async partner(id: string): Promise<Partner> {
    const partner = await this.deps.partners.get(id);
    if (!partner) throw new ConnectorError('not_found', `partner ${id} not found`);
    return partner;
  }

  private async runVenue(partnerId: string, venueId: string): Promise<VenueImportResult> {
    const { venueImports, clock, log } = this.deps;
    const partner = await this.partner(partnerId);
    const api = this.deps.api.forPartner(partner);
    const state =
      (await venueImports.get(partnerId, venueId)) ?? initialVenueState(partnerId, venueId);
    let highest = state.watermark.getTime();
    let changed = 0;
    let error = '';
    try {
      for (let page = 0; ; page += 1) {
        const answer = await api.listEvents({
          venue: venueId,
          lastModification: state.watermark.toISOString(),
          page,
          size: PAGE_SIZE,
        });
        for (const item of answer.events_info) {
          if (await this.applyEvent(partner, api, venueId, item)) changed += 1;
          highest = Math.max(highest, Date.parse(item.event.last_modification));
        }
        if (answer.events_info.length === 0 || page + 1 >= answer.page.total_pages) break;
      }
    } catch (failure) {
      // The watermark stays: pages are sorted by date, not by modification, so a partial run
      // cannot tell which later modifications it has not seen. Re-imports skip unchanged events.
      error = failure instanceof Error ? failure.message : String(failure);
      log.warn({ err: failure, partner_id: partnerId, venue_id: venueId }, 'venue import failed');
    }
    const next = {
      ...state,
      watermark: error ? state.watermark : new Date(highest),
      lastImportAt: clock.now(),
      lastImportEvents: changed,
      lastError: error,
    };
    try {
      await venueImports.save(next);
    } catch (saveError) {
      // Another replica or run saved meanwhile: its state is as good as ours.
      if (errorKindOf(saveError) !== 'aborted') throw saveError;
    }
    log.info({ partner_id: partnerId, venue_id: venueId, changed, error }, 'venue imported');
    return { venueId, changed, ...(error ? { error } : {}) };
  }

  /**
   * Stores a new or changed event with its `event-changed`; false when unchanged, or refused
   * because it breaks a rule of the 3P API (`eventRuleProblems`: two regular price types, a logo
   * listed twice): counted in `marquee_refused_partner_events_total`, logged, and the version
   * imported before (if any) left as it was.
   */
  private async applyEvent(
    partner: Partner,
    api: PartnerApi,
    venueId: string,
    item: Pick<EventListItem, 'event' | 'status' | 'mod_list'>,
  ): Promise<boolean> {
    const { events, ids, clock } = this.deps;
    const event = item.event;
    const problems = eventRuleProblems(event);
    if (problems.length > 0) {
      this.deps.metrics.eventRefused(partner.id);
      this.deps.log.warn(
        { partner_id: partner.id, partner_event_id: event.event_id, problems },
        'partner event refused: it breaks the 3P API rules',
      );
      return false;
    }
    const lastModification = new Date(event.last_modification);
    // Another import may store this partner event first: then read it again and compare.
    const stored = await retryingConflicts(
      async (): Promise<ImportedEvent | undefined> => {
        const existing = await events.findByPartnerEvent(partner.id, event.event_id);
        if (existing && existing.lastModification.getTime() >= lastModification.getTime())
          return undefined;
        const manifest = await this.manifest(partner, api, event.manifest_id);
        await this.fetchReferences(partner, api, event);
        const now = clock.now();
        const id = existing?.id ?? ids.eventId();
        const version = (existing?.event.version ?? 0) + 1;
        const next: ImportedEvent = {
          id,
          version: existing?.version ?? 0,
          partnerId: partner.id,
          partnerEventId: event.event_id,
          partnerVenueId: venueId,
          lastModification,
          partnerStatus: item.status,
          manifestId: event.manifest_id,
          accessCodes: accessCodesOf(event),
          event: toDiscoveryEvent({
            id,
            version,
            partner,
            venueId,
            answer: item,
            manifest,
            createdAt: existing?.createdAt ?? now,
            updatedAt: now,
          }),
          availabilitySequence: existing?.availabilitySequence ?? 0,
          ...(existing?.availabilityModification
            ? { availabilityModification: existing.availabilityModification }
            : {}),
          createdAt: existing?.createdAt ?? now,
          updatedAt: now,
        };
        if (existing) await events.replace(next, existing.version);
        else await events.create(next);
        return next;
      },
      { isConflict: isWriteRace },
    );
    if (!stored) return false;
    await this.syncAvailability(api, stored).catch((error: unknown) =>
      this.deps.log.warn(
        { err: error, event_id: stored.id },
        'availability sync after import failed',
      ),
    );
    return true;
  }

  /** Full synchronisation (every area, seats included) on `availability-changed`. */
  async syncAvailability(api: PartnerApi, imported: ImportedEvent): Promise<void> {
    const answer = await api.getAvailability(imported.partnerEventId, { detail: 'seats' });
    const areas = toAreaAvailability(answer.areas);
    const observedAt = this.deps.clock.now();
    await this.deps.events.recordAvailability(
      imported.id,
      (sequence) => ({
        eventId: imported.id,
        partnerId: imported.partnerId,
        partnerEventId: imported.partnerEventId,
        scope: 'FULL',
        areas,
        totalAvailable: areas.reduce((sum, a) => sum + a.available, 0),
        observedAt,
        sequence,
      }),
      new Date(answer.last_modification),
    );
  }

  private async manifest(
    partner: Partner,
    api: PartnerApi,
    id: string,
  ): Promise<Manifest | undefined> {
    const { resources, log } = this.deps;
    const known = await resources.get<Manifest>('manifest', partner.id, id);
    if (known) return known;
    try {
      const { manifest } = await api.getManifest(id);
      await resources.put('manifest', partner.id, id, manifest);
      return manifest;
    } catch (error) {
      // The event is still importable: names fall back to the event's own.
      log.warn({ err: error, partner_id: partner.id, manifest_id: id }, 'manifest fetch failed');
      return undefined;
    }
  }

  private async fetchReferences(
    partner: Partner,
    api: PartnerApi,
    event: EventListItem['event'],
  ): Promise<void> {
    const { resources, log } = this.deps;
    const { logos, taxPlans } = referencedResources(event);
    const wanted = [
      ...logos.map((id) => ({
        kind: 'logo' as const,
        id,
        fetch: () => api.getLogo(id).then((a) => a.logo),
      })),
      ...taxPlans.map((id) => ({
        kind: 'tax_plan' as const,
        id,
        fetch: () => api.getTaxPlan(id).then((a) => a.tax_plan),
      })),
    ];
    for (const item of wanted) {
      if (await resources.get(item.kind, partner.id, item.id)) continue;
      try {
        await resources.put(item.kind, partner.id, item.id, await item.fetch());
      } catch (error) {
        log.warn(
          { err: error, partner_id: partner.id, [`${item.kind}_id`]: item.id },
          'fetch failed',
        );
      }
    }
  }
}
