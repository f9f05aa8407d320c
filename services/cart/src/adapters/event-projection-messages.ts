import type {
  AvailabilityChanged,
  Event,
  EventStatus as ProtoEventStatus,
} from '@marquee/proto/catalog/v1';
import type { LocalizedString } from '@marquee/proto/common/v1';
import type { AvailabilityUpdate, ProjectedEvent } from '../domain/event-projection.js';
import type {
  SellableArea,
  SellableEventStatus,
  SellablePricePeriod,
} from '../domain/sellable-event.js';

const STATUS: Record<string, SellableEventStatus> = {
  EVENT_STATUS_ONSALE: 'ONSALE',
  EVENT_STATUS_OFFSALE: 'OFFSALE',
  EVENT_STATUS_CANCELLED: 'CANCELLED',
  EVENT_STATUS_POSTPONED: 'POSTPONED',
  EVENT_STATUS_RESCHEDULED: 'RESCHEDULED',
};

/** The text of a locale map: en-us (any case), then en, then the first locale; `''` when empty. */
export function pickText(text: LocalizedString | undefined): string {
  const values = text?.values ?? {};
  const entries = Object.entries(values);
  const find = (locale: string) => entries.find(([k]) => k.toLowerCase() === locale)?.[1];
  return find('en-us') ?? find('en') ?? entries[0]?.[1] ?? '';
}

function countryOf(event: Event): string {
  const location = event.location;
  if (location?.$case === 'place') return location.value.country?.countryCode.toUpperCase() ?? '';
  return '';
}

/** An `event-changed` state as the event part of the projection. Pure. */
export function toProjectedEvent(event: Event): ProjectedEvent {
  const origin =
    event.origin?.kind?.$case === 'partnerImport' ? event.origin.kind.value : undefined;
  const ticketing = origin ? event.ticketing : undefined;
  const currency = ticketing?.currency ?? '';
  const periods: SellablePricePeriod[] = (ticketing?.pricePeriods ?? []).map((period) => ({
    id: period.id,
    startsAt: period.startDateTime ?? new Date(0),
    endsAt: period.endDateTime ?? new Date(8_640_000_000_000_000),
    prices: period.prices
      .filter((p) => !p.amount?.currency || p.amount.currency === currency)
      .map((p) => ({
        priceLevelId: p.priceLevelId,
        priceTypeId: p.priceTypeId,
        amountMinor: Number(p.amount?.amountMinor ?? 0),
      })),
  }));
  const sale = event.sales?.publicSale;
  const start = event.dates?.start?.dateTime;
  return {
    id: event.id,
    eventVersion: Number(event.version),
    partnerId: origin?.partnerId ?? '',
    partnerEventId: origin?.partnerEventId ?? '',
    name: pickText(event.names),
    timezone: event.dates?.timezone ?? '',
    countryCode: countryOf(event),
    currency,
    status: STATUS[event.status as ProtoEventStatus] ?? 'UNSPECIFIED',
    active: event.active,
    ...(start ? { startsAt: start } : {}),
    ...(sale?.startDateTime && !sale.startTbd ? { onSaleFrom: sale.startDateTime } : {}),
    ...(sale?.endDateTime ? { onSaleUntil: sale.endDateTime } : {}),
    secureEntryEnabled: ticketing?.secureEntryEnabled ?? false,
    ticketLimit: ticketing?.maximumTicketsQuantity ?? 0,
    priceLevels: (ticketing?.priceLevels ?? []).map((level) => ({
      id: level.id,
      name: pickText(level.names),
      description: pickText(level.descriptions),
    })),
    priceTypes: (ticketing?.priceTypes ?? []).map((type) => ({
      id: type.id,
      name: pickText(type.names),
      description: pickText(type.descriptions),
      regular: type.regular,
      accessCodeRequired: type.accessCodeRequired,
    })),
    pricePeriods: periods,
  };
}

/** An `availability-changed` record as the update the projection applies. Pure. */
export function toAvailabilityUpdate(change: AvailabilityChanged): AvailabilityUpdate {
  const areas: SellableArea[] = change.areas.map((a) => ({
    areaId: a.areaId,
    levelId: a.levelId,
    sectionId: a.sectionId,
    priceLevelId: a.priceLevelId,
    generalAdmission: a.generalAdmission,
    available: a.available,
    unavailable: a.unavailable,
  }));
  return {
    sequence: Number(change.sequence),
    areas,
    partial: change.scope === 'SYNC_SCOPE_PARTIAL',
    ...(change.observedAt ? { observedAt: change.observedAt } : {}),
  };
}
