import { describe, expect, it } from 'vitest';
import {
  distanceKm,
  EARTH_RADIUS_KM,
  haversineKm,
  KM_PER_DEGREE,
  KM_PER_MILE,
  milesToKm,
} from '../src/index.js';

const madisonSquareGarden = { latitude: 40.7505, longitude: -73.9934 };
const bostonGarden = { latitude: 42.3662, longitude: -71.0621 };
const london = { latitude: 51.5074, longitude: -0.1278 };
const paris = { latitude: 48.8566, longitude: 2.3522 };

describe('great-circle distance', () => {
  // Expected values from the spherical law of cosines on the same sphere, an independent formula.
  it('measures known distances', () => {
    expect(distanceKm(madisonSquareGarden, bostonGarden)).toBeCloseTo(302.894, 3);
    expect(distanceKm(london, paris)).toBeCloseTo(343.557, 3);
  });

  it('is zero for one point and the same both ways', () => {
    expect(distanceKm(paris, paris)).toBe(0);
    expect(distanceKm(london, paris)).toBe(distanceKm(paris, london));
  });

  it('takes the short way across the antimeridian', () => {
    // Two points of Fiji 0.2° of longitude apart, on either side of ±180°.
    expect(haversineKm(-17.8, 179.9, -17.8, -179.9)).toBeCloseTo(21.174, 3);
  });

  it('answers half the circumference for antipodal points instead of NaN', () => {
    expect(haversineKm(0, 0, 0, 180)).toBeCloseTo(Math.PI * EARTH_RADIUS_KM, 6);
    expect(haversineKm(90, 0, -90, 0)).toBeCloseTo(Math.PI * EARTH_RADIUS_KM, 6);
  });

  it('gives the same answer for loose coordinates and for points', () => {
    expect(haversineKm(london.latitude, london.longitude, paris.latitude, paris.longitude)).toBe(
      distanceKm(london, paris),
    );
  });

  it('is NaN for an unknown coordinate, which no radius admits', () => {
    const km = haversineKm(Number.NaN, 0, 10, 10);
    expect(km).toBeNaN();
    expect(km <= 20_000).toBe(false);
  });
});

describe('units', () => {
  it('converts miles to kilometres', () => {
    expect(milesToKm(1)).toBe(KM_PER_MILE);
    expect(milesToKm(10)).toBeCloseTo(16.09344, 10);
  });

  it('has a degree of latitude of about 111.2 km', () => {
    expect(KM_PER_DEGREE).toBeCloseTo(111.195, 3);
    expect(haversineKm(10, 20, 11, 20)).toBeCloseTo(KM_PER_DEGREE, 9);
  });
});
