import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';
import { minorUnits } from '../src/commands/resale.js';

function harness(answer: { status: number; body: unknown } = { status: 200, body: { ok: true } }) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const fakeFetch = viaRequest(async (url, init) => {
    calls.push({
      method: init.method ?? 'GET',
      path: String(url).replace('https://edge.test', ''),
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    });
    return new Response(JSON.stringify(answer.body), { status: answer.status });
  });
  const run = (argv: string[]) =>
    runCli(argv, {
      env: { MARQUEE_URL: 'https://edge.test', ADMIN_TOKEN: 'admin-token-123456' },
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      readStdin: async () => '',
      fetch: fakeFetch,
    });
  return { run, calls, out, err };
}

describe('marquee resale', () => {
  it('creates a listing with the price in minor units', async () => {
    const sut = harness({ status: 201, body: { id: 'EV.L' } });
    const code = await sut.run([
      'resale',
      'create',
      '--order',
      'o-1',
      '--ticket',
      'T1',
      '--ticket',
      'T2,T3',
      '--price',
      '45.5',
      '--currency',
      'eur',
      '--notes',
      'Aisle',
    ]);
    expect(code).toBe(0);
    expect(sut.calls).toEqual([
      {
        method: 'POST',
        path: '/admin/v1/resale-listings',
        body: {
          orderId: 'o-1',
          ticketIds: ['T1', 'T2', 'T3'],
          price: { amount: 4550, currency: 'EUR' },
          sellerNotes: 'Aisle',
        },
      },
    ]);
    expect(JSON.parse(sut.out.join('\n'))).toEqual({ id: 'EV.L' });
  });

  it('lists, shows and withdraws', async () => {
    const sut = harness();
    expect(await sut.run(['resale', 'list', '--event', 'EV1', '--active', '--limit', '5'])).toBe(0);
    expect(await sut.run(['resale', 'show', 'EV1.abc'])).toBe(0);
    expect(await sut.run(['resale', 'withdraw', 'EV1.abc'])).toBe(0);
    expect(sut.calls.map(({ method, path }) => ({ method, path }))).toEqual([
      { method: 'GET', path: '/admin/v1/resale-listings?eventId=EV1&activeOnly=true&limit=5' },
      { method: 'GET', path: '/admin/v1/resale-listings/EV1.abc' },
      { method: 'DELETE', path: '/admin/v1/resale-listings/EV1.abc' },
    ]);
  });

  it('refuses bad usage with exit code 2 before calling the API', async () => {
    const sut = harness();
    for (const argv of [
      ['resale', 'create', '--ticket', 'T1', '--price', '1', '--currency', 'EUR'],
      ['resale', 'create', '--order', 'o', '--price', '1', '--currency', 'EUR'],
      [
        'resale',
        'create',
        '--order',
        'o',
        '--ticket',
        'T',
        '--price',
        '1.234',
        '--currency',
        'EUR',
      ],
      ['resale', 'create', '--order', 'o', '--ticket', 'T', '--price', '0', '--currency', 'EUR'],
      ['resale', 'create', '--order', 'o', '--ticket', 'T', '--price', '1', '--currency', 'NOPE'],
      ['resale', 'list'],
      ['resale', 'list', '--event', 'E', '--limit', '501'],
      ['resale', 'withdraw'],
    ]) {
      expect(await sut.run(argv), argv.join(' ')).toBe(2);
    }
    expect(sut.calls).toEqual([]);
  });

  it('exits 1 when the API refuses', async () => {
    const sut = harness({
      status: 409,
      body: { error: { code: 'failed_precondition', message: 'held' } },
    });
    expect(await sut.run(['resale', 'withdraw', 'EV1.abc'])).toBe(1);
  });

  it('converts amounts by the currency', () => {
    expect(minorUnits('45', 'EUR')).toBe(4500);
    expect(minorUnits('1500', 'JPY')).toBe(1500);
    expect(() => minorUnits('1.5', 'JPY')).toThrow();
  });
});
