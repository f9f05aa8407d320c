import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { skipIsFailure } from '@marquee/platform/testing';

/** Debian's Chromium (`apt-get install -y chromium`); `CHROMIUM_PATH` to use another. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether the browser tier can run here; a loud skip locally, a failure under CI and in `pnpm test` (skipIsFailure). */
export function requireChromium(): boolean {
  if (existsSync(chromiumPath)) return true;
  const message = `no Chromium at ${chromiumPath}: apt-get update && apt-get install -y chromium (or set CHROMIUM_PATH)`;
  if (skipIsFailure()) throw new Error(message);
  console.warn(`\n*** SKIPPED browser tests: ${message}\n`);
  return false;
}

/** A headless Chromium with a fresh profile, closed and deleted by `close()`. */
export async function launchChromium(): Promise<{
  context: BrowserContext;
  close(): Promise<void>;
}> {
  const profile = await mkdtemp(join(tmpdir(), 'marquee-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
