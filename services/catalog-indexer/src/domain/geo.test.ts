import { describe, expect, it } from 'vitest';
import { distanceKm, GeoGrid } from './geo.js';

const within = (grid: GeoGrid, center: { latitude: number; longitude: number }, km: number) => {
  const seen: string[] = [];
  const answered = grid.within(center, km, (id) => seen.push(id));
  return answered ? seen.sort() : undefined;
};

describe('GeoGrid', () => {
  const grid = new GeoGrid();
  grid.add('msg', { latitude: 40.7505, longitude: -73.9934 });
  grid.add('newark', { latitude: 40.7335, longitude: -74.1711 });
  grid.add('boston', { latitude: 42.3662, longitude: -71.0621 });
  grid.add('fiji-east', { latitude: -17.8, longitude: 179.9 });
  grid.add('fiji-west', { latitude: -17.8, longitude: -179.9 });

  it('visits each point within the radius once, by exact distance across cells', () => {
    expect(within(grid, { latitude: 40.758, longitude: -73.9855 }, 5)).toEqual(['msg']);
    expect(within(grid, { latitude: 40.758, longitude: -73.9855 }, 20)).toEqual(['msg', 'newark']);
    expect(within(grid, { latitude: 40.758, longitude: -73.9855 }, 350)).toEqual([
      'boston',
      'msg',
      'newark',
    ]);
  });

  it('wraps across the antimeridian', () => {
    expect(within(grid, { latitude: -17.8, longitude: 179.95 }, 30)).toEqual([
      'fiji-east',
      'fiji-west',
    ]);
  });

  it('forgets removed points and refuses radii too wide for the grid', () => {
    const g = new GeoGrid();
    g.add('a', { latitude: 10, longitude: 10 });
    g.remove('a', { latitude: 10, longitude: 10 });
    expect(within(g, { latitude: 10, longitude: 10 }, 50)).toEqual([]);
    expect(within(g, { latitude: 10, longitude: 10 }, 15_000)).toBeUndefined();
    expect(within(g, { latitude: 89.9, longitude: 0 }, 100)).toBeUndefined();
  });

  it('measures great-circle distance', () => {
    const km = distanceKm(
      { latitude: 40.7505, longitude: -73.9934 },
      { latitude: 42.3662, longitude: -71.0621 },
    );
    expect(km).toBeGreaterThan(300);
    expect(km).toBeLessThan(310);
  });
});
