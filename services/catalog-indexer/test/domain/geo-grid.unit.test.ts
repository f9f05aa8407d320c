import { describe, expect, it } from 'vitest';
import { GeoGrid } from '../../src/domain/geo-grid.js';

const within = (grid: GeoGrid, center: { latitude: number; longitude: number }, km: number) => {
  const seen: string[] = [];
  grid.within(center, km, (id) => seen.push(id));
  return seen.sort();
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

  it('forgets removed points', () => {
    const g = new GeoGrid();
    g.add('a', { latitude: 10, longitude: 10 });
    g.remove('a', { latitude: 10, longitude: 10 });
    expect(within(g, { latitude: 10, longitude: 10 }, 50)).toEqual([]);
  });

  it('answers radii too wide for its cells by checking every point', () => {
    // Over 20,000 cells: New York to Fiji is ~12,700 km, to Boston ~300 km.
    expect(within(grid, { latitude: 40.758, longitude: -73.9855 }, 10_000)).toEqual([
      'boston',
      'msg',
      'newark',
    ]);
    expect(within(grid, { latitude: 40.758, longitude: -73.9855 }, 15_000)).toEqual([
      'boston',
      'fiji-east',
      'fiji-west',
      'msg',
      'newark',
    ]);
    // Near a pole the longitude span covers the globe: still exact by distance.
    expect(within(grid, { latitude: 89.9, longitude: 0 }, 100)).toEqual([]);
    expect(within(grid, { latitude: 89.9, longitude: 0 }, 5_400)).toEqual(['boston']);
  });
});
