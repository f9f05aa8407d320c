/**
 * Geographic arithmetic the services' domain code shares (catalog-indexer's radius search and
 * distance sort, deals' `latlong` + `radius` filter). Pure: no dependencies, nothing created at
 * import time, so domain/ may import it (eslint's layer rule forbids only infrastructure).
 *
 * These run once per candidate event of a geo search, thousands of times per query: nothing here
 * allocates. Callers whose coordinates are loose numbers use `haversineKm`; building a `Point` per
 * call just to pass it to `distanceKm` would cost an allocation per candidate.
 */

/** Coordinates in degrees. */
export interface Point {
  latitude: number;
  longitude: number;
}

// What the hot functions read: exported bindings are loaded on every call (live module
// bindings), where V8 folds a module's own constants into the optimised code (bench/geo).
const RADIUS_KM = 6371.0088;
const MILE_KM = 1.609344;

/** The mean Earth radius (IUGG), the sphere the haversine formula measures on. */
export const EARTH_RADIUS_KM = RADIUS_KM;
export const KM_PER_MILE = MILE_KM;
/** Length of one degree of latitude (and of longitude at the equator) on that sphere. */
export const KM_PER_DEGREE = (Math.PI * RADIUS_KM) / 180;

export const milesToKm = (miles: number): number => miles * MILE_KM;

/**
 * Great-circle distance in kilometres between two coordinates in degrees (haversine). NaN when
 * either coordinate is NaN, so an unknown location never passes a `<= radius` test.
 */
export function haversineKm(
  latitudeA: number,
  longitudeA: number,
  latitudeB: number,
  longitudeB: number,
): number {
  const rad = Math.PI / 180;
  const dLat = (latitudeB - latitudeA) * rad;
  const dLon = (longitudeB - longitudeA) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(latitudeA * rad) * Math.cos(latitudeB * rad) * Math.sin(dLon / 2) ** 2;
  // Rounding can push h a hair above 1 for antipodal points: asin would answer NaN.
  return 2 * RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Great-circle distance in kilometres between two points (haversine). */
export function distanceKm(a: Point, b: Point): number {
  return haversineKm(a.latitude, a.longitude, b.latitude, b.longitude);
}
