import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

/** A fake edge admin API answering `PUT /admin/v1/events/{eventId}/onsale`. */
function harness() {
  const calls: { method: string; path: string; body?: unknown }[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const answer = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fakeFetch = viaRequest(async (url, init) => {
    const method = init.method ?? 'GET';
    const path = String(url).replace('https://edge.test', '');
    const body = init.body === undefined ? undefined : JSON.parse(String(init.body));
    calls.push({ method, path, ...(body === undefined ? {} : { body }) });
    const match = /^\/admin\/v1\/events\/([^/]+)\/onsale$/.exec(path);
    if (method === 'PUT' && match) {
      if (match[1] === 'EvFrozen0000001')
        return answer(409, {
          error: { code: 'failed_precondition', message: 'the early joiners were ordered' },
        });
      return answer(200, {
        onSale: { eventId: match[1], ...body, earlyCount: 0, admittedThrough: 0 },
      });
    }
    return answer(404, { error: { code: 'not_found', message: 'no route' } });
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

describe('marquee onsale set', () => {
  it('turns the queue on with the opening in UTC and prints the on-sale', async () => {
    const sut = harness();
    expect(
      await sut.run([
        'onsale',
        'set',
        'EvQueue00000001',
        '--opens-at',
        '2030-06-01T12:00:00+02:00',
        '--queue',
      ]),
    ).toBe(0);
    expect(sut.calls).toEqual([
      {
        method: 'PUT',
        path: '/admin/v1/events/EvQueue00000001/onsale',
        body: { opensAt: '2030-06-01T10:00:00.000Z', queue: true },
      },
    ]);
    expect(JSON.parse(sut.out.join('\n')).onSale).toMatchObject({
      eventId: 'EvQueue00000001',
      queue: true,
    });
  });

  it('turns it off with --no-queue', async () => {
    const sut = harness();
    expect(
      await sut.run([
        'onsale',
        'set',
        'EvQueue00000001',
        '--opens-at',
        '2030-06-01T10:00:00Z',
        '--no-queue',
      ]),
    ).toBe(0);
    expect(sut.calls[0]?.body).toEqual({ opensAt: '2030-06-01T10:00:00.000Z', queue: false });
  });

  it('refuses unclear usage with exit 2 and calls nothing', async () => {
    const sut = harness();
    for (const argv of [
      ['onsale', 'set', '--opens-at', '2030-06-01T10:00:00Z', '--queue'],
      ['onsale', 'set', 'EvQueue00000001', '--opens-at', '2030-06-01 10:00', '--queue'],
      ['onsale', 'set', 'EvQueue00000001', '--opens-at', '2030-06-01T10:00:00Z'],
      [
        'onsale',
        'set',
        'EvQueue00000001',
        '--opens-at',
        '2030-06-01T10:00:00Z',
        '--queue',
        '--no-queue',
      ],
      ['onsale', 'set', 'bad id!', '--opens-at', '2030-06-01T10:00:00Z', '--queue'],
    ])
      expect(await sut.run(argv)).toBe(2);
    expect(sut.calls).toEqual([]);
  });

  it('exits 1 with the API refusal when the opening can no longer move', async () => {
    const sut = harness();
    expect(
      await sut.run([
        'onsale',
        'set',
        'EvFrozen0000001',
        '--opens-at',
        '2030-06-01T10:00:00Z',
        '--queue',
      ]),
    ).toBe(1);
    expect(sut.err.join('\n')).toMatch(/409|ordered/);
  });
});
