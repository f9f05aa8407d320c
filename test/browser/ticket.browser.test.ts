import { randomBytes } from 'node:crypto';
import { createLogger } from '@marquee/platform/logger';
import { startEmbedded, type EmbeddedMarquee } from '@marquee/embedded';
import {
  codeAt,
  decodeToken,
  encodeToken,
  payloadAt,
  STEP_SECONDS,
  timeStep,
} from '@marquee/render-kit/format';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, requireChromium } from './chromium.js';

const canRun = requireChromium();

const STEP_MS = STEP_SECONDS * 1000;

/** RFC 4648 base32 of random bytes: a rotating secret as secure-entry derives it (20 bytes). */
function base32Secret(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of randomBytes(20)) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

/**
 * The ticket page `/tickets/view#token=...` of the embedded default in headless Chromium: it draws
 * the entry barcode of a rotating token with the render kit and redraws it at every 15-second step
 * boundary. The page's clock is Playwright's fake clock, so the steps pass without waiting.
 *
 * The token has secure-entry's format (built with the kit's `encodeToken`, as secure-entry does);
 * its sealed part is opaque to the page, which never sends it anywhere.
 */
describe.skipIf(!canRun)('ticket page in headless Chromium', () => {
  let marquee: EmbeddedMarquee;
  let browser: { context: BrowserContext; close(): Promise<void> };
  const tokenText = encodeToken({
    version: 1,
    barcode: '4213370012345678',
    eventId: 'EvBrowser000001',
    renderType: 'rotating_symbology',
    segmentType: 'ROTATING_SYMBOLOGY',
    issuedAt: 1_893_456_000,
    rotatingSecrets: [base32Secret(), base32Secret()],
    fixed: randomBytes(90).toString('base64url'),
  });
  const token = decodeToken(tokenText);
  // A step boundary: 2030-01-01T00:00:00Z is a multiple of 15 s since the epoch.
  const stepStart = Date.UTC(2030, 0, 1);

  beforeAll(async () => {
    marquee = await startEmbedded({
      host: '127.0.0.1',
      port: 0,
      partnerPort: 0,
      logger: createLogger({ service: 'browser-test', level: 'silent' }),
      env: { LOG_LEVEL: 'silent' },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await marquee?.stop();
  });

  /** What the page shows: the attributes the kit sets on the barcode and the drawn SVG. */
  const shown = (page: Page) =>
    page.locator('#barcode').evaluate((host) => ({
      payload: host.getAttribute('data-payload'),
      step: Number(host.getAttribute('data-step')),
      symbology: host.getAttribute('data-symbology'),
      svg: host.innerHTML,
    }));

  /** Opens the page with the fake clock started at `at` and paused at `pausedAt`. */
  async function open(at: number, pausedAt: number): Promise<Page> {
    const page = await browser.context.newPage();
    await page.clock.install({ time: at });
    const response = await page.goto(`${marquee.baseUrl}/tickets/view#token=${tokenText}`);
    expect(response?.status()).toBe(200);
    await expect
      .poll(() => page.locator('#barcode').getAttribute('data-payload'), { timeout: 30_000 })
      .toBeTruthy();
    await page.clock.pauseAt(pausedAt);
    return page;
  }

  it('shows the barcode of the token, the same within a step and a new one at the next step', async () => {
    // Load time of the page is real time (the fake clock runs until paused): start 1 s into the
    // step and pause 10 s into it, so however slow the load, the first drawing is in this step.
    const page = await open(stepStart + 1_000, stepStart + 10_000);
    const first = await shown(page);
    expect(first.step).toBe(timeStep(stepStart));
    expect(first.symbology).toBe('pdf417');
    expect(first.svg).toContain('<svg');
    expect(first.svg.length).toBeGreaterThan(1_000);
    // What a scanner reads is the payload the kit computes in Node for the same instant.
    const seconds = Number(first.payload!.split(':')[4]);
    expect(Math.floor(seconds / STEP_SECONDS)).toBe(first.step);
    expect(first.payload).toBe(payloadAt(token, seconds * 1000));
    expect(first.payload).toBe(
      `MQ1:${token.fixed}:${codeAt(token.rotatingSecrets[0]!, first.step)}:${codeAt(token.rotatingSecrets[1]!, first.step)}:${seconds}`,
    );
    await expect.poll(() => page.locator('#display').textContent()).toBe('XXXX5678');
    expect(await page.locator('#event').textContent()).toBe(token.eventId);
    const countdown = async () =>
      Number(/^(\d+) s$/.exec((await page.locator('#countdown').textContent()) ?? '')?.[1]);
    const before = await countdown();
    expect(before).toBeGreaterThanOrEqual(5);
    expect(before).toBeLessThanOrEqual(6);

    // Three seconds later, still in the step: the same barcode (the countdown moves on).
    await page.clock.runFor(3_000);
    expect(await shown(page)).toEqual(first);
    expect(await countdown()).toBe(before - 3);

    // Past the step boundary: a new payload and a new drawing, for the next step.
    await page.clock.runFor(3_000);
    const second = await shown(page);
    expect(second.step).toBe(first.step + 1);
    expect(second.payload).not.toBe(first.payload);
    expect(second.svg).not.toBe(first.svg);
    expect(second.payload).toBe(payloadAt(token, stepStart + STEP_MS));
    expect(second.payload).toContain(`:${codeAt(token.rotatingSecrets[0]!, second.step)}:`);

    // And the one after that, a step later.
    await page.clock.runFor(STEP_MS);
    const third = await shown(page);
    expect(third.step).toBe(first.step + 2);
    expect(new Set([first.payload, second.payload, third.payload]).size).toBe(3);
    await page.close();
  });

  it('switches to the QR fallback without changing the payload of the step', async () => {
    const page = await open(stepStart + 1_000, stepStart + 10_000);
    const pdf417 = await shown(page);
    await page.getByRole('button', { name: 'Show QR code' }).click();
    const qr = await shown(page);
    expect(qr.symbology).toBe('qrcode');
    expect(qr.step).toBe(pdf417.step);
    expect(qr.svg).not.toBe(pdf417.svg);
    expect(qr.payload!.split(':').slice(0, 4)).toEqual(pdf417.payload!.split(':').slice(0, 4));
    expect(await page.getByRole('button').textContent()).toBe('Show PDF417');
    await page.close();
  });

  it('says so when the page is opened without a token or with a malformed one', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${marquee.baseUrl}/tickets/view`);
    await expect
      .poll(() => page.locator('#message').textContent(), { timeout: 30_000 })
      .toContain('No ticket');
    await page.goto(`${marquee.baseUrl}/tickets/view#token=bm90LWEtdG9rZW4`);
    await page.reload();
    await expect
      .poll(() => page.locator('#message').textContent(), { timeout: 30_000 })
      .toContain('the token is not Base64 of a JSON object');
    expect(await page.locator('#barcode').innerHTML()).toBe('');
    await page.close();
  });
});
