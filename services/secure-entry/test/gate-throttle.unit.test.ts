import { describe, expect, it } from 'vitest';
import { EVENT_ID, harness } from './support/fixtures.js';

const FORGED = 'MQ1:not-a-sealed-part:123456:654321:1';

async function gateOf(h: ReturnType<typeof harness>) {
  return (await h.entry.createGate({ name: 'North 1', eventId: EVENT_ID })).token;
}

describe('scan throttle per gate', () => {
  it('refuses a gate past its FORGED bound for the rest of the minute, recording nothing more', async () => {
    const h = harness({ scanLimits: { scansPerMinute: 0, forgedPerMinute: 3 } });
    const gate = await gateOf(h);
    const other = await gateOf(h);
    for (let i = 0; i < 3; i += 1) {
      expect((await h.entry.validateScan(gate, FORGED)).result).toBe('FORGED');
    }
    const recorded = await h.stores.collection('refused_scans').count({});
    const refused = h.entry.validateScan(gate, FORGED);
    await expect(refused).rejects.toMatchObject({ kind: 'resource_exhausted' });
    await expect(refused).rejects.toHaveProperty('details.retryAfterMs');
    expect(await h.stores.collection('refused_scans').count({})).toBe(recorded);
    // Another gate has its own budget; the next minute the first one scans again.
    expect((await h.entry.validateScan(other, FORGED)).result).toBe('FORGED');
    h.clock.advance(60_000);
    expect((await h.entry.validateScan(gate, FORGED)).result).toBe('FORGED');
  });

  it('bounds all scans of a gate a minute, by default too', async () => {
    const h = harness({ scanLimits: { scansPerMinute: 2, forgedPerMinute: 0 } });
    const gate = await gateOf(h);
    await h.entry.validateScan(gate, 'garbage');
    await h.entry.validateScan(gate, 'garbage');
    await expect(h.entry.validateScan(gate, 'garbage')).rejects.toMatchObject({
      kind: 'resource_exhausted',
    });
    const defaults = harness();
    const busy = await gateOf(defaults);
    const results = [];
    for (let i = 0; i < 31; i += 1) {
      results.push(
        await defaults.entry.validateScan(busy, FORGED).catch((e: { kind: string }) => e.kind),
      );
    }
    expect(results.at(-1)).toBe('resource_exhausted');
  });
});
