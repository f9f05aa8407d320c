import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeToken, type EntryToken } from '../src/format.js';
import { mountTicket, renderAt } from '../src/render.js';

const token: EntryToken = {
  version: 1,
  barcode: '4012345678901234',
  eventId: 'G5vYZ9abcdEFgh1',
  renderType: 'rotating_symbology',
  segmentType: 'ROTATING_SYMBOLOGY',
  issuedAt: 1_780_000_000,
  rotatingSecrets: ['GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', 'JBSWY3DPEHPK3PXP'],
  fixed: 'x'.repeat(180),
};

class Host {
  innerHTML = '';
  attributes: Record<string, string> = {};
  setAttribute(name: string, value: string) {
    this.attributes[name] = value;
  }
}

afterEach(() => vi.useRealTimers());

describe('renderAt', () => {
  it('draws PDF417 for rotating tokens, QR when asked or for static tokens', () => {
    expect(renderAt(token, 0).symbology).toBe('pdf417');
    expect(renderAt(token, 0).svg).toMatch(/^<svg/);
    expect(renderAt(token, 0, 'qrcode').symbology).toBe('qrcode');
    const staticToken = { ...token, renderType: 'barcode' as const, rotatingSecrets: [] };
    expect(renderAt(staticToken, 0).symbology).toBe('qrcode');
  });
});

describe('mountTicket', () => {
  it('redraws at every 15-second step with a new payload', () => {
    vi.useFakeTimers();
    const start = 1_780_000_005_000 - (1_780_000_005_000 % 15_000) + 1_000;
    vi.setSystemTime(start);
    const host = new Host();
    const view = mountTicket(host, encodeToken(token));
    const first = { svg: host.innerHTML, payload: host.attributes['data-payload'] };
    expect(first.svg).toMatch(/^<svg/);
    vi.advanceTimersByTime(10_000);
    expect(host.innerHTML).toBe(first.svg);
    vi.advanceTimersByTime(5_000);
    expect(host.attributes['data-payload']).not.toBe(first.payload);
    expect(host.innerHTML).not.toBe(first.svg);
    expect(Number(host.attributes['data-step'])).toBe(Math.floor(start / 15_000) + 1);
    view.stop();
  });
});
