import { randomBytes } from 'node:crypto';
import { createMemoryBus } from '@marquee/platform/bus';
import { secretBoxKeyId } from '@marquee/platform/crypto';
import { createLogger } from '@marquee/platform/logger';
import { waitFor } from '@marquee/platform/testing';
import { describe, expect, it } from 'vitest';
import { threePConnectorService } from '../src/index.js';

/** Composes and starts the connector (memory stores and bus) with `key`; its log lines. */
async function started(key: string) {
  const lines: string[] = [];
  const logger = createLogger({
    service: '3p-connector',
    level: 'info',
    destination: { write: (line: string) => void lines.push(line) },
  });
  const bus = createMemoryBus({ source: 'test' });
  const config = threePConnectorService.loadConfig({ PARTNER_CREDENTIALS_KEY: key });
  const parts = await threePConnectorService.compose(
    { name: '3p-connector', logger, bus, mongo: undefined },
    config,
  );
  await bus.start();
  await parts.start?.();
  return {
    lines,
    async stop() {
      await parts.stop?.();
      await bus.close();
    },
  };
}

describe('re-seal of partner secrets at start', () => {
  it('runs while PARTNER_CREDENTIALS_KEY holds several keys, and logs its report', async () => {
    const [next, old] = [randomBytes(32), randomBytes(32)];
    const sut = await started(`${next.toString('base64')},${old.toString('base64')}`);
    try {
      const done = await waitFor(
        () => sut.lines.find((line) => line.includes('re-seal of partner secrets done')),
        { timeoutMs: 5_000 },
      );
      const logged = JSON.parse(done) as { keyId: string; report: object };
      expect(logged.keyId).toBe(secretBoxKeyId(next));
      expect(logged.report).toEqual({
        resealed: 0,
        alreadyCurrent: 0,
        failed: 0,
        collections: {
          partners: { resealed: 0, alreadyCurrent: 0, failed: 0 },
          imported_events: { resealed: 0, alreadyCurrent: 0, failed: 0 },
        },
      });
      expect(sut.lines.join('\n')).not.toContain(next.toString('base64'));
    } finally {
      await sut.stop();
    }
  });

  it('does not run with one key', async () => {
    const sut = await started(randomBytes(32).toString('base64'));
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(sut.lines.join('\n')).not.toContain('re-seal');
    } finally {
      await sut.stop();
    }
  });
});
