import { describe, expect, it } from 'vitest';
import { ConnectorRuntime } from '../src/app/runtime.js';

/**
 * The runtime's lookup of an event's imported record and partner, which every booking, release
 * and order call makes: reused for a short while, so a burst of calls for one event reads them
 * once; a failed lookup is not remembered.
 */
describe('ConnectorRuntime.resolve', () => {
  const setup = (resolveCacheMs?: number) => {
    const reads = { events: 0, partners: 0 };
    let known = true;
    const runtime = new ConnectorRuntime({
      events: {
        get: async (id: string) => {
          reads.events += 1;
          return known ? { id, partnerId: 'P1', partnerEventId: 'EV1' } : undefined;
        },
      },
      partners: {
        get: async (id: string) => {
          reads.partners += 1;
          return { id };
        },
      },
      api: { forPartner: () => ({}) },
      ...(resolveCacheMs !== undefined ? { resolveCacheMs } : {}),
    } as unknown as ConstructorParameters<typeof ConnectorRuntime>[0]);
    return { runtime, reads, forget: () => (known = false), learn: () => (known = true) };
  };

  it('reads an event and its partner once for a burst of calls', async () => {
    const { runtime, reads } = setup();
    const resolved = await Promise.all(
      Array.from({ length: 20 }, () => runtime.resolve('Z7xQ2mP9kLr4tYb')),
    );
    expect(resolved.every((r) => r.imported.partnerEventId === 'EV1')).toBe(true);
    expect(reads).toEqual({ events: 1, partners: 1 });
  });

  it('reads on every call when the reuse time is 0', async () => {
    const { runtime, reads } = setup(0);
    await runtime.resolve('Z7xQ2mP9kLr4tYb');
    await runtime.resolve('Z7xQ2mP9kLr4tYb');
    expect(reads).toEqual({ events: 2, partners: 2 });
  });

  it('does not remember that an event was not found', async () => {
    const { runtime, reads, forget, learn } = setup();
    forget();
    await expect(runtime.resolve('Z7xQ2mP9kLr4tYb')).rejects.toMatchObject({ kind: 'not_found' });
    learn();
    await expect(runtime.resolve('Z7xQ2mP9kLr4tYb')).resolves.toMatchObject({
      partner: { id: 'P1' },
    });
    expect(reads.events).toBe(2);
  });
});
