import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

function harness(answer: { status: number; body: unknown } = { status: 200, body: { ok: true } }) {
  const calls: { method: string; path: string; body?: unknown }[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const fakeFetch = viaRequest(async (url, init) => {
    calls.push({
      method: init.method ?? 'GET',
      path: String(url).replace('https://edge.test', ''),
      ...(init.body === undefined ? {} : { body: JSON.parse(String(init.body)) }),
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

describe('marquee orders', () => {
  it('gets one order and prints it', async () => {
    const sut = harness({ status: 200, body: { order: { orderId: 'ord/1' }, tickets: [] } });
    expect(await sut.run(['orders', 'get', 'ord/1'])).toBe(0);
    expect(sut.calls).toEqual([{ method: 'GET', path: '/admin/v1/orders/ord%2F1' }]);
    expect(JSON.parse(sut.out.join('\n'))).toEqual({ order: { orderId: 'ord/1' }, tickets: [] });
  });

  it('cancels with a reason and detail, or with none', async () => {
    const sut = harness({ status: 200, body: { partnerCancelQueued: true } });
    expect(
      await sut.run([
        'orders',
        'cancel',
        'ord-1',
        '--reason',
        'EVENT_CANCELLED',
        '--detail',
        'storm',
      ]),
    ).toBe(0);
    expect(await sut.run(['orders', 'cancel', 'ord-2'])).toBe(0);
    expect(sut.calls).toEqual([
      {
        method: 'POST',
        path: '/admin/v1/orders/ord-1/cancel',
        body: { reason: 'EVENT_CANCELLED', detail: 'storm' },
      },
      { method: 'POST', path: '/admin/v1/orders/ord-2/cancel', body: {} },
    ]);
  });

  it('cancels only --tickets (comma separated, repeats dropped), refusing an empty list', async () => {
    const sut = harness({ status: 200, body: { partnerCancelQueued: false, tickets: [] } });
    expect(await sut.run(['orders', 'cancel', 'ord-1', '--tickets', 'T2, T1,T2'])).toBe(0);
    expect(await sut.run(['orders', 'cancel', 'ord-1', '--tickets', 'T1,'])).toBe(2);
    expect(await sut.run(['orders', 'cancel', 'ord-1', '--tickets', ''])).toBe(2);
    expect(sut.calls).toEqual([
      { method: 'POST', path: '/admin/v1/orders/ord-1/cancel', body: { ticketIds: ['T2', 'T1'] } },
    ]);
  });

  it('prints an order (PRINT unless --action says ROLLBACK_PRINT) and prints the answer', async () => {
    const sut = harness({ status: 200, body: { order: { orderId: 'ord-1' }, tickets: [] } });
    expect(await sut.run(['orders', 'print', 'ord-1'])).toBe(0);
    expect(await sut.run(['orders', 'print', 'ord-1', '--action', 'ROLLBACK_PRINT'])).toBe(0);
    expect(await sut.run(['orders', 'print', 'ord-1', '--action', 'PRINT'])).toBe(0);
    expect(sut.calls).toEqual([
      { method: 'POST', path: '/admin/v1/orders/ord-1/print', body: {} },
      { method: 'POST', path: '/admin/v1/orders/ord-1/print', body: { action: 'ROLLBACK_PRINT' } },
      { method: 'POST', path: '/admin/v1/orders/ord-1/print', body: { action: 'PRINT' } },
    ]);
    expect(JSON.parse(sut.out[0]!)).toEqual({ order: { orderId: 'ord-1' }, tickets: [] });
  });

  it('refuses a bad action or a missing id before calling the API, and exits 1 on a 409', async () => {
    const sut = harness({
      status: 409,
      body: {
        error: {
          code: '90003',
          message: 'order ord-1 is CANCELLED: only a confirmed order can be printed',
        },
      },
    });
    expect(await sut.run(['orders', 'print', 'ord-1', '--action', 'rollback'])).toBe(2);
    expect(await sut.run(['orders', 'print'])).toBe(2);
    expect(await sut.run(['orders', 'print', 'a', 'b'])).toBe(2);
    expect(sut.calls).toEqual([]);
    expect(await sut.run(['orders', 'print', 'ord-1'])).toBe(1);
    expect(sut.err.join('\n')).toContain('only a confirmed order can be printed');
  });

  it('refuses a bad reason or a missing id before calling the API, and exits 1 on a 404', async () => {
    const sut = harness({
      status: 404,
      body: { error: { code: 'not_found', message: 'order x not found' } },
    });
    expect(await sut.run(['orders', 'cancel', 'ord-1', '--reason', 'BORED'])).toBe(2);
    expect(await sut.run(['orders', 'get'])).toBe(2);
    expect(await sut.run(['orders', 'get', 'a', 'b'])).toBe(2);
    expect(sut.calls).toEqual([]);
    expect(await sut.run(['orders', 'get', 'x'])).toBe(1);
    expect(sut.err.join('\n')).toContain('order x not found');
  });
});
