import type { BookingRequest, ManifestArea, Ticket } from '@marquee/partner-api';
import { refused, Err } from '../domain/errors.js';
import {
  rowRanges,
  type AllocationPart,
  type RowRange,
  type SeatRequest,
} from '../domain/inventory.js';
import type { EventRecord, ManifestRecord } from '../domain/model.js';
import type { Repository } from './ports.js';

/** A manifest with the indexes seat selection needs (manifests never change once created). */
export interface CachedManifest {
  record: ManifestRecord;
  rows: RowRange[][];
  areaIndex: Map<string, number>;
  seatIndex: Map<string, number>[];
}

/** Manifests never change once created: cached with what seat selection needs. */
export class ManifestCache {
  readonly #entries = new Map<string, CachedManifest>();

  constructor(private readonly manifests: Repository<ManifestRecord>) {}

  /** The manifest with its indexes; refused (INVALID_MANIFEST_ID) when there is none. */
  async get(manifestId: string): Promise<CachedManifest> {
    const cached = this.#entries.get(manifestId);
    if (cached !== undefined) return cached;
    const record = await this.manifests.get(manifestId);
    if (record === undefined)
      throw refused(Err.INVALID_MANIFEST_ID, `unknown manifest ${manifestId}`);
    const entry = cachedManifest(record);
    this.#entries.set(manifestId, entry);
    return entry;
  }
}

function cachedManifest(record: ManifestRecord): CachedManifest {
  const areas = record.manifest.areas;
  return {
    record,
    rows: areas.map(rowRanges),
    areaIndex: new Map(areas.map((area, i) => [area.id, i])),
    seatIndex: areas.map((area) => new Map((area.seats ?? []).map((seat, i) => [seat.id, i]))),
  };
}

/**
 * The areas a booking line may take its places from, best first (by level position), and the
 * seats it names; refused when its price type, area, price level or seats do not fit the event.
 */
export function seatRequestOf(
  record: EventRecord,
  manifest: CachedManifest,
  prices: Map<string, string>,
  line: BookingRequest['request']['tickets'][number],
): SeatRequest {
  const event = record.event;
  const priceType = event.price_types.find((type) => type.id === line.price_type_id);
  if (priceType === undefined)
    throw refused(Err.INVALID_PRICE_TYPE_ID, `unknown price type ${line.price_type_id}`);
  if (priceType.access_code !== undefined && priceType.access_code !== line.access_code)
    throw refused(Err.INVALID_PRICE_TYPE_ID, `price type ${priceType.id} needs its access code`);
  const areas = manifest.record.manifest.areas;
  let candidates = areas.map((_, i) => i);
  if (line.area_id !== undefined) {
    const index = manifest.areaIndex.get(line.area_id);
    if (index === undefined) throw refused(Err.INVALID_SECTION_ID, `unknown area ${line.area_id}`);
    candidates = [index];
  }
  if (line.price_level_id !== undefined) {
    if (!event.price_levels.some((level) => level.id === line.price_level_id))
      throw refused(Err.INVALID_PRICE_LEVEL_ID, `unknown price level ${line.price_level_id}`);
    candidates = candidates.filter((i) => areas[i]!.price_level_id === line.price_level_id);
  }
  candidates = candidates.filter((i) =>
    prices.has(`${areas[i]!.price_level_id}|${line.price_type_id}`),
  );
  if (candidates.length === 0)
    throw line.price_level_id !== undefined || line.area_id !== undefined
      ? refused(Err.INVALID_PRICE_LEVEL_ID, 'no price for this price type in these areas')
      : refused(Err.INVALID_PRICE_TYPE_ID, `price type ${line.price_type_id} has no price`);
  const position = (area: ManifestArea) =>
    manifest.record.manifest.levels.find((level) => level.id === area.level_id)?.position ??
    Number.MAX_SAFE_INTEGER;
  candidates.sort((a, b) => position(areas[a]!) - position(areas[b]!) || a - b);
  if (line.seat_ids === undefined) return { candidates, quantity: line.quantity };
  const area = candidates[0]!;
  if (areas[area]!.general_admission)
    throw refused(Err.INVALID_SEAT, `area ${line.area_id} is general admission`);
  const seats = line.seat_ids.map((seatId) => {
    const index = manifest.seatIndex[area]!.get(seatId);
    if (index === undefined) throw refused(Err.INVALID_SEAT, `unknown seat ${seatId}`);
    return index;
  });
  return { candidates: [area], quantity: line.quantity, seats };
}

/** The tickets of a booking line's allocated places, priced by its price type. */
export function ticketsOf(
  token: string,
  manifest: CachedManifest,
  prices: Map<string, string>,
  priceTypeId: string,
  parts: AllocationPart[],
): Ticket[] {
  const tickets: Ticket[] = [];
  for (const part of parts) {
    const area = manifest.record.manifest.areas[part.area]!;
    const base = {
      ticket_id: token,
      area_id: area.id,
      ...(area.level_id !== undefined ? { level_id: area.level_id } : {}),
      ...(area.section_id !== undefined ? { section_id: area.section_id } : {}),
      price_level_id: area.price_level_id,
      price_type_id: priceTypeId,
      amount: prices.get(`${area.price_level_id}|${priceTypeId}`) ?? '0',
    };
    if (area.general_admission) {
      for (let i = 0; i < part.places; i += 1)
        tickets.push({ ...base, row: '', seat: '', general_admission: true });
    } else {
      for (const index of part.seats) {
        const seat = area.seats![index]!;
        tickets.push({
          ...base,
          row: seat.row,
          seat: seat.number,
          seat_id: seat.id,
          general_admission: false,
        });
      }
    }
  }
  return tickets;
}
