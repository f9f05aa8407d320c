/** Coordinates in degrees. */
export interface Point {
  latitude: number;
  longitude: number;
}

const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_MILE = 1.609344;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;

export const milesToKm = (miles: number): number => miles * KM_PER_MILE;

/** Great-circle distance (haversine). */
export function distanceKm(a: Point, b: Point): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * A fixed grid of `cellDegrees` cells over the globe: a radius query visits only the cells its
 * bounding box covers, then the caller checks the exact distance. Simple, allocation-light and
 * exact after the distance check; good for the city-scale radii discovery is asked for.
 */
export class GeoGrid {
  private readonly cells = new Map<string, Set<string>>();

  constructor(private readonly cellDegrees = 0.5) {}

  private key(latCell: number, lonCell: number): string {
    return `${latCell}:${lonCell}`;
  }

  private cellOf(point: Point): [number, number] {
    return [
      Math.floor(point.latitude / this.cellDegrees),
      Math.floor(point.longitude / this.cellDegrees),
    ];
  }

  add(id: string, point: Point): void {
    const key = this.key(...this.cellOf(point));
    let cell = this.cells.get(key);
    if (!cell) this.cells.set(key, (cell = new Set()));
    cell.add(id);
  }

  remove(id: string, point: Point): void {
    const key = this.key(...this.cellOf(point));
    const cell = this.cells.get(key);
    if (!cell) return;
    cell.delete(id);
    if (cell.size === 0) this.cells.delete(key);
  }

  /** Ids whose cell may lie within `radiusKm` of `center` (a superset); `undefined` = too wide, scan everything. */
  candidates(center: Point, radiusKm: number): Set<string> | undefined {
    const latSpan = radiusKm / KM_PER_DEGREE;
    const minLat = Math.max(-90, center.latitude - latSpan);
    const maxLat = Math.min(90, center.latitude + latSpan);
    const widestCos = Math.min(
      Math.cos((Math.max(Math.abs(minLat), Math.abs(maxLat)) * Math.PI) / 180),
      1,
    );
    const lonSpan = widestCos <= 0.01 ? 180 : radiusKm / (KM_PER_DEGREE * widestCos);
    if (lonSpan >= 180) return undefined;
    const latCells = [
      Math.floor(minLat / this.cellDegrees),
      Math.floor(maxLat / this.cellDegrees),
    ] as const;
    const lonFrom = Math.floor((center.longitude - lonSpan) / this.cellDegrees);
    const lonTo = Math.floor((center.longitude + lonSpan) / this.cellDegrees);
    const cellsPerTurn = Math.round(360 / this.cellDegrees);
    if ((latCells[1] - latCells[0] + 1) * (lonTo - lonFrom + 1) > 20_000) return undefined;
    const found = new Set<string>();
    for (let lat = latCells[0]; lat <= latCells[1]; lat++) {
      for (let lon = lonFrom; lon <= lonTo; lon++) {
        // Wrap across the antimeridian: cells are numbered from -180°.
        const wrapped =
          ((((lon + cellsPerTurn / 2) % cellsPerTurn) + cellsPerTurn) % cellsPerTurn) -
          cellsPerTurn / 2;
        const cell = this.cells.get(this.key(lat, wrapped));
        if (cell) for (const id of cell) found.add(id);
      }
    }
    return found;
  }
}
