import {
  eventRuleProblems,
  type FaceValuePrices,
  type Manifest,
  type PartnerEvent,
} from '@marquee/partner-api';
import type { EventRecord } from './model.js';

/**
 * The face value prices in force at `now`: the period that contains it, else the latest one that
 * has started, else the earliest. Keyed `<price level>|<price type>`.
 */
export function pricesAt(event: PartnerEvent, now: Date): Map<string, string> {
  const periods = [...event.face_value_prices].sort((a, b) =>
    a.price_period.start_date_time.localeCompare(b.price_period.start_date_time),
  );
  const t = now.getTime();
  const starts = (p: FaceValuePrices) => Date.parse(p.price_period.start_date_time);
  const ends = (p: FaceValuePrices) => Date.parse(p.price_period.end_date_time);
  const chosen =
    periods.find((p) => starts(p) <= t && t < ends(p)) ??
    [...periods].reverse().find((p) => starts(p) <= t) ??
    periods[0];
  const prices = new Map<string, string>();
  for (const price of chosen?.prices ?? [])
    prices.set(`${price.price_level_id}|${price.price_type_id}`, price.amount);
  return prices;
}

/** The name used for sorting: en-us, else the first text. */
export function displayName(event: PartnerEvent): string {
  return (event.text_infos.find((t) => t.lang === 'en-us') ?? event.text_infos[0])?.name ?? '';
}

/** Bookable: on sale and not yet started. */
export function isOnSale(record: EventRecord, now: Date): boolean {
  return record.status === 'ON_SALE' && record.startsAt.getTime() > now.getTime();
}

/**
 * What is wrong with an event against its manifest (empty when nothing): every price names a
 * price level and type of the event, every price level of the event exists in the manifest,
 * periods are well ordered, at most one price type is regular and no logo is listed twice (the 3P
 * API's `eventRuleProblems`); that logos and tax plans exist is checked by the caller (they live
 * elsewhere).
 */
export function eventProblems(event: PartnerEvent, manifest: Manifest): string[] {
  const problems: string[] = [];
  const manifestLevels = new Set(manifest.price_levels.map((p) => p.id));
  const levels = new Set(event.price_levels.map((p) => p.id));
  const types = new Set(event.price_types.map((p) => p.id));
  if (levels.size !== event.price_levels.length) problems.push('price_levels: duplicate id');
  if (types.size !== event.price_types.length) problems.push('price_types: duplicate id');
  for (const level of levels)
    if (!manifestLevels.has(level))
      problems.push(
        `price_levels: ${level} is not a price level of manifest ${manifest.manifest_id}`,
      );
  for (const [i, period] of event.face_value_prices.entries()) {
    if (
      !(
        Date.parse(period.price_period.start_date_time) <
        Date.parse(period.price_period.end_date_time)
      )
    )
      problems.push(`face_value_prices[${i}]: the period must end after it starts`);
    for (const price of period.prices) {
      if (!levels.has(price.price_level_id))
        problems.push(`face_value_prices[${i}]: unknown price level ${price.price_level_id}`);
      if (!types.has(price.price_type_id))
        problems.push(`face_value_prices[${i}]: unknown price type ${price.price_type_id}`);
    }
  }
  if (event.text_infos.length === 0) problems.push('text_infos: at least one is required');
  problems.push(...eventRuleProblems(event));
  return problems;
}

/** What is wrong with a manifest (empty when nothing). */
export function manifestProblems(manifest: Manifest): string[] {
  const problems: string[] = [];
  const levels = new Set(manifest.levels.map((l) => l.id));
  const sections = new Set(manifest.sections.map((s) => s.id));
  const priceLevels = new Set(manifest.price_levels.map((p) => p.id));
  const areaIds = new Set<string>();
  const places = new Set<string>();
  for (const area of manifest.areas) {
    if (areaIds.has(area.id)) problems.push(`areas: duplicate id ${area.id}`);
    areaIds.add(area.id);
    if (area.level_id !== undefined && !levels.has(area.level_id))
      problems.push(`area ${area.id}: unknown level ${area.level_id}`);
    if (area.section_id !== undefined && !sections.has(area.section_id))
      problems.push(`area ${area.id}: unknown section ${area.section_id}`);
    const place = `${area.level_id ?? ''}|${area.section_id ?? ''}`;
    if (area.level_id !== undefined && area.section_id !== undefined) {
      if (places.has(place))
        problems.push(`area ${area.id}: another area has level and section ${place}`);
      places.add(place);
    }
    if (!priceLevels.has(area.price_level_id))
      problems.push(`area ${area.id}: unknown price level ${area.price_level_id}`);
    if (area.general_admission) {
      if ((area.seats?.length ?? 0) > 0)
        problems.push(`area ${area.id}: general admission has no seats`);
    } else {
      const seats = area.seats ?? [];
      if (seats.length !== area.capacity)
        problems.push(`area ${area.id}: capacity must equal the number of seats`);
      if (new Set(seats.map((s) => s.id)).size !== seats.length)
        problems.push(`area ${area.id}: duplicate seat id`);
    }
  }
  if (manifest.areas.length === 0) problems.push('areas: at least one is required');
  return problems;
}
