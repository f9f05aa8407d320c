import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

function harness(answer: { status: number; body: unknown } = { status: 200, body: { ok: true } }) {
  const calls: { method: string; path: string }[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const fakeFetch = viaRequest(async (url, init) => {
    calls.push({
      method: init.method ?? 'GET',
      path: String(url).replace('https://edge.test', ''),
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

describe('marquee cases', () => {
  it('lists with the filters and paging, and shows one case', async () => {
    const sut = harness();
    expect(await sut.run(['cases', 'list'])).toBe(0);
    expect(
      await sut.run([
        'cases',
        'list',
        '--open',
        '--partner',
        'p-1',
        '--offset',
        '10',
        '--limit',
        '5',
      ]),
    ).toBe(0);
    expect(await sut.run(['cases', 'show', 'rc-order:o1'])).toBe(0);
    expect(sut.calls).toEqual([
      { method: 'GET', path: '/admin/v1/reconciliation/cases' },
      {
        method: 'GET',
        path: '/admin/v1/reconciliation/cases?openOnly=true&partnerId=p-1&offset=10&limit=5',
      },
      { method: 'GET', path: '/admin/v1/reconciliation/cases/rc-order%3Ao1' },
    ]);
  });

  it('refuses a bad limit before calling the API', async () => {
    const sut = harness();
    expect(await sut.run(['cases', 'list', '--limit', '0'])).toBe(2);
    expect(await sut.run(['cases', 'list', '--limit', 'ten'])).toBe(2);
    expect(sut.calls).toEqual([]);
  });
});

describe('marquee reconcile | report', () => {
  it('runs an event now and prints the report', async () => {
    const sut = harness({ status: 200, body: { eventId: 'ev-1', matched: 2 } });
    expect(await sut.run(['reconcile', 'ev-1'])).toBe(0);
    expect(sut.calls).toEqual([
      { method: 'POST', path: '/admin/v1/reconciliation/events/ev-1/runs' },
    ]);
    expect(JSON.parse(sut.out.join('\n'))).toEqual({ eventId: 'ev-1', matched: 2 });
  });

  it('reads the latest report; exits 1 with the 404 before the first run', async () => {
    const sut = harness({
      status: 404,
      body: { error: { code: 'not_found', message: 'event ev-1 has not been reconciled yet' } },
    });
    expect(await sut.run(['report', 'ev-1'])).toBe(1);
    expect(sut.calls).toEqual([
      { method: 'GET', path: '/admin/v1/reconciliation/events/ev-1/report' },
    ]);
    expect(sut.err.join('\n')).toContain('has not been reconciled yet');
  });

  it('needs the event id', async () => {
    const sut = harness();
    expect(await sut.run(['reconcile'])).toBe(2);
    expect(await sut.run(['report', 'a', 'b'])).toBe(2);
  });
});
