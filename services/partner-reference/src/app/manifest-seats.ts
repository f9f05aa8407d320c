import { refused, Err } from '../domain/errors.js';
import type { EventRecord } from '../domain/event.js';
import {
  rowRanges,
  type AllocationPart,
  type RowRange,
  type SeatRequest,
} from '../domain/inventory.js';
import type { Area, ManifestRecord, Ticket } from '../domain/model.js';
import type { Repository } from './ports.js';
import type { BookingLine } from './requests.js';

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
  prices: Map<string, number>,
  line: BookingLine,
): SeatRequest {
  const event = record.details;
  const priceType = event.priceTypes.find((type) => type.id === line.priceTypeId);
  if (priceType === undefined)
    throw refused(Err.INVALID_PRICE_TYPE_ID, `unknown price type ${line.priceTypeId}`);
  if (priceType.accessCode !== undefined && priceType.accessCode !== line.accessCode)
    throw refused(Err.INVALID_PRICE_TYPE_ID, `price type ${priceType.id} needs its access code`);
  const areas = manifest.record.manifest.areas;
  let candidates = areas.map((_, i) => i);
  if (line.areaId !== undefined) {
    const index = manifest.areaIndex.get(line.areaId);
    if (index === undefined) throw refused(Err.INVALID_SECTION_ID, `unknown area ${line.areaId}`);
    candidates = [index];
  }
  if (line.priceLevelId !== undefined) {
    if (!event.priceLevels.some((level) => level.id === line.priceLevelId))
      throw refused(Err.INVALID_PRICE_LEVEL_ID, `unknown price level ${line.priceLevelId}`);
    candidates = candidates.filter((i) => areas[i]!.priceLevelId === line.priceLevelId);
  }
  candidates = candidates.filter((i) =>
    prices.has(`${areas[i]!.priceLevelId}|${line.priceTypeId}`),
  );
  if (candidates.length === 0)
    throw line.priceLevelId !== undefined || line.areaId !== undefined
      ? refused(Err.INVALID_PRICE_LEVEL_ID, 'no price for this price type in these areas')
      : refused(Err.INVALID_PRICE_TYPE_ID, `price type ${line.priceTypeId} has no price`);
  const position = (area: Area) =>
    manifest.record.manifest.levels.find((level) => level.id === area.levelId)?.position ??
    Number.MAX_SAFE_INTEGER;
  candidates.sort((a, b) => position(areas[a]!) - position(areas[b]!) || a - b);
  if (line.seatIds === undefined) return { candidates, quantity: line.quantity };
  const area = candidates[0]!;
  if (areas[area]!.generalAdmission)
    throw refused(Err.INVALID_SEAT, `area ${line.areaId} is general admission`);
  const seats = line.seatIds.map((seatId) => {
    const index = manifest.seatIndex[area]!.get(seatId);
    if (index === undefined) throw refused(Err.INVALID_SEAT, `unknown seat ${seatId}`);
    return index;
  });
  return { candidates: [area], quantity: line.quantity, seats };
}

/** The tickets of a booking line's allocated places, priced by its price type (ids set later). */
export function ticketsOf(
  token: string,
  manifest: CachedManifest,
  prices: Map<string, number>,
  priceTypeId: string,
  parts: AllocationPart[],
): Ticket[] {
  const tickets: Ticket[] = [];
  for (const part of parts) {
    const area = manifest.record.manifest.areas[part.area]!;
    const base = {
      ticketId: token,
      areaId: area.id,
      ...(area.levelId !== undefined ? { levelId: area.levelId } : {}),
      ...(area.sectionId !== undefined ? { sectionId: area.sectionId } : {}),
      priceLevelId: area.priceLevelId,
      priceTypeId,
      amountMinor: prices.get(`${area.priceLevelId}|${priceTypeId}`) ?? 0,
    };
    if (area.generalAdmission) {
      for (let i = 0; i < part.places; i += 1)
        tickets.push({ ...base, row: '', seat: '', generalAdmission: true });
    } else {
      for (const index of part.seats) {
        const seat = area.seats![index]!;
        tickets.push({
          ...base,
          row: seat.row,
          seat: seat.number,
          seatId: seat.id,
          generalAdmission: false,
        });
      }
    }
  }
  return tickets;
}
