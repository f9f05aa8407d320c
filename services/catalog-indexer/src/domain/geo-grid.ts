import { distanceKm, KM_PER_DEGREE, type Point } from '@marquee/geo';

/**
 * A fixed grid of `cellDegrees` cells over the globe: a radius query visits only the cells its
 * bounding box covers and checks the exact distance of each point there. Cells are numbered, each
 * id lives in one cell with its point, and a query allocates nothing per point: it is on the hot
 * path of every geo search (bench/discovery).
 */
export class GeoGrid {
  private readonly cells = new Map<number, Map<string, Point>>();

  constructor(private readonly cellDegrees = 0.5) {}

  /** Latitude cells lie within ±180 / cellDegrees, longitude cells (wrapped) within ±360 / cellDegrees. */
  private key(latCell: number, lonCell: number): number {
    return (latCell + 1_000_000) * 4_000_000 + (lonCell + 2_000_000);
  }

  private keyOf(point: Point): number {
    return this.key(
      Math.floor(point.latitude / this.cellDegrees),
      Math.floor(point.longitude / this.cellDegrees),
    );
  }

  add(id: string, point: Point): void {
    const key = this.keyOf(point);
    let cell = this.cells.get(key);
    if (!cell) this.cells.set(key, (cell = new Map()));
    cell.set(id, { latitude: point.latitude, longitude: point.longitude });
  }

  remove(id: string, point: Point): void {
    const key = this.keyOf(point);
    const cell = this.cells.get(key);
    if (!cell) return;
    cell.delete(id);
    if (cell.size === 0) this.cells.delete(key);
  }

  /**
   * Calls `visit` once for each id within `radiusKm` of `center` (exact great-circle distance).
   * Only the cells the radius's bounding box covers are read; a radius too wide for that (a pole,
   * or over 20,000 cells) reads every cell.
   */
  within(center: Point, radiusKm: number, visit: (id: string) => void): void {
    const near = (cell: Map<string, Point>) => {
      for (const [id, point] of cell) if (distanceKm(center, point) <= radiusKm) visit(id);
    };
    const everywhere = () => {
      for (const cell of this.cells.values()) near(cell);
    };
    const latSpan = radiusKm / KM_PER_DEGREE;
    const minLat = Math.max(-90, center.latitude - latSpan);
    const maxLat = Math.min(90, center.latitude + latSpan);
    const widestCos = Math.min(
      Math.cos((Math.max(Math.abs(minLat), Math.abs(maxLat)) * Math.PI) / 180),
      1,
    );
    const lonSpan = widestCos <= 0.01 ? 180 : radiusKm / (KM_PER_DEGREE * widestCos);
    if (lonSpan >= 180) return everywhere();
    const latFrom = Math.floor(minLat / this.cellDegrees);
    const latTo = Math.floor(maxLat / this.cellDegrees);
    const lonFrom = Math.floor((center.longitude - lonSpan) / this.cellDegrees);
    const lonTo = Math.floor((center.longitude + lonSpan) / this.cellDegrees);
    const cellsPerTurn = Math.round(360 / this.cellDegrees);
    if ((latTo - latFrom + 1) * (lonTo - lonFrom + 1) > 20_000) return everywhere();
    for (let lat = latFrom; lat <= latTo; lat++) {
      for (let lon = lonFrom; lon <= lonTo; lon++) {
        // Wrap across the antimeridian: cells are numbered from -180°.
        const wrapped =
          ((((lon + cellsPerTurn / 2) % cellsPerTurn) + cellsPerTurn) % cellsPerTurn) -
          cellsPerTurn / 2;
        const cell = this.cells.get(this.key(lat, wrapped));
        if (cell) near(cell);
      }
    }
  }
}
