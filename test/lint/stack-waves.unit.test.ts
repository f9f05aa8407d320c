import { describe, expect, it } from 'vitest';
import { backends, launchWaves } from '../support/stack.ts';

// The distributed stack of the e2e tier and the benchmarks starts its back ends in waves, side by
// side within a wave: a service may start only once every address it calls is known.
describe('the stack start waves', () => {
  const waves = launchWaves();
  const waveOf = (name: string) => waves.findIndex((wave) => wave.some((b) => b.name === name));

  it('start every back end exactly once', () => {
    const started = waves.flat().map((b) => b.name);
    expect(started.toSorted()).toEqual(backends.map((b) => b.name).toSorted());
  });

  it('start a service after every service whose address it calls', () => {
    for (const backend of backends)
      for (const key of backend.needs ?? []) {
        const provider = backends.find((b) => b.addressKey === key)!;
        expect(waveOf(provider.name), `${backend.name} needs ${key}`).toBeLessThan(
          waveOf(backend.name),
        );
      }
    expect(waveOf('cart')).toBeGreaterThan(waveOf('3p-connector'));
    expect(waveOf('deals')).toBeGreaterThan(waveOf('catalog-indexer'));
  });

  it('start side by side what needs nothing', () => {
    expect(waves[0]!.map((b) => b.name)).toEqual(
      backends.filter((b) => !b.needs?.length).map((b) => b.name),
    );
  });

  it('refuse an address no back end has, and a cycle', () => {
    expect(() => launchWaves([{ name: 'a', needs: ['GRPC_ADDR_NONE'] }])).toThrow(
      'a needs GRPC_ADDR_NONE, which no back end has',
    );
    expect(() =>
      launchWaves([
        { name: 'a', addressKey: 'A', needs: ['B'] },
        { name: 'b', addressKey: 'B', needs: ['A'] },
      ]),
    ).toThrow('start order has a cycle: a -> b -> a');
  });
});
