import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

/** A fake edge admin API that keeps gates like `/admin/v1/gates` does. */
function harness() {
  const calls: { method: string; path: string; body?: unknown }[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const gates: { id: string; name: string; eventId: string; revokedAt?: string }[] = [];
  const answer = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fakeFetch = viaRequest(async (url, init) => {
    const method = init.method ?? 'GET';
    const path = String(url).replace('https://edge.test', '');
    const body = init.body === undefined ? undefined : JSON.parse(String(init.body));
    calls.push({ method, path, ...(body === undefined ? {} : { body }) });
    const target = new URL(String(url));
    if (method === 'POST' && target.pathname === '/admin/v1/gates') {
      const gate = { id: `g${gates.length + 1}abcd`, name: body.name, eventId: body.eventId };
      gates.unshift(gate);
      return answer(201, { gate, token: `mqg_${gate.id}.secret-part-of-the-token` });
    }
    if (method === 'GET' && target.pathname === '/admin/v1/gates') {
      const event = target.searchParams.get('eventId');
      return answer(200, { gates: gates.filter((g) => !event || g.eventId === event) });
    }
    const revoke = /^\/admin\/v1\/gates\/([^/]+)$/.exec(target.pathname);
    if (method === 'DELETE' && revoke) {
      const gate = gates.find((g) => g.id === revoke[1]);
      if (!gate)
        return answer(404, { error: { code: 'not_found', message: `No gate ${revoke[1]}` } });
      gate.revokedAt ??= '2030-01-01T00:00:00.000Z';
      return answer(200, { gate });
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

describe('marquee gates', () => {
  it('creates a gate and prints it with its token', async () => {
    const sut = harness();
    expect(
      await sut.run(['gates', 'create', '--event', 'EvSecure0000001', '--name', ' North 3 ']),
    ).toBe(0);
    expect(sut.calls).toEqual([
      {
        method: 'POST',
        path: '/admin/v1/gates',
        body: { name: 'North 3', eventId: 'EvSecure0000001' },
      },
    ]);
    expect(JSON.parse(sut.out.join('\n'))).toEqual({
      gate: { id: 'g1abcd', name: 'North 3', eventId: 'EvSecure0000001' },
      token: 'mqg_g1abcd.secret-part-of-the-token',
    });
  });

  it('lists all gates or one event’s, and revokes one', async () => {
    const sut = harness();
    await sut.run(['gates', 'create', '--event', 'EvA', '--name', 'North']);
    await sut.run(['gates', 'create', '--event', 'EvB', '--name', 'South']);
    sut.out.length = 0;
    expect(await sut.run(['gates', 'list'])).toBe(0);
    expect(JSON.parse(sut.out.pop()!).gates.map((g: { name: string }) => g.name)).toEqual([
      'South',
      'North',
    ]);
    expect(await sut.run(['gates', 'list', '--event', 'EvA'])).toBe(0);
    expect(JSON.parse(sut.out.pop()!)).toEqual({
      gates: [{ id: 'g1abcd', name: 'North', eventId: 'EvA' }],
    });
    expect(await sut.run(['gates', 'revoke', 'g1abcd'])).toBe(0);
    expect(JSON.parse(sut.out.pop()!).gate).toMatchObject({
      id: 'g1abcd',
      revokedAt: expect.any(String),
    });
    expect(sut.calls.slice(2).map(({ method, path }) => ({ method, path }))).toEqual([
      { method: 'GET', path: '/admin/v1/gates' },
      { method: 'GET', path: '/admin/v1/gates?eventId=EvA' },
      { method: 'DELETE', path: '/admin/v1/gates/g1abcd' },
    ]);
    // The list never carries a token.
    expect(sut.out.join('\n')).not.toContain('mqg_');
  });

  it('refuses bad usage with exit code 2 before calling the API', async () => {
    const sut = harness();
    for (const argv of [
      ['gates', 'create', '--name', 'North'],
      ['gates', 'create', '--event', 'EvA'],
      ['gates', 'create', '--event', 'EvA', '--name', '   '],
      ['gates', 'create', '--event', 'EvA', '--name', 'x'.repeat(201)],
      ['gates', 'create', '--event', 'not an id', '--name', 'North'],
      ['gates', 'create', '--event', 'EvA', '--name', 'North', 'extra'],
      ['gates', 'create', '--event', 'EvA', '--name', 'North', '--token', 't'],
      ['gates', 'list', '--event', 'a/b'],
      ['gates', 'list', 'EvA'],
      ['gates', 'revoke'],
      ['gates', 'revoke', 'g1abcd', 'g2abcd'],
      ['gates', 'revoke', '../apps'],
    ]) {
      expect(await sut.run(argv), argv.join(' ')).toBe(2);
    }
    expect(sut.calls).toEqual([]);
    expect(sut.err.join('\n')).toContain('usage: marquee gates create --event <eventId> --name');
  });

  it('exits 1 with the API error when the gate is unknown', async () => {
    const sut = harness();
    expect(await sut.run(['gates', 'revoke', 'nosuchgate'])).toBe(1);
    expect(sut.err.join('\n')).toContain('No gate nosuchgate');
  });

  it('appears in the usage', async () => {
    const sut = harness();
    expect(await sut.run(['help'])).toBe(0);
    const usage = sut.out.join('\n');
    expect(usage).toContain('gates create --event <eventId> --name <name>');
    expect(usage).toContain('gates list [--event <eventId>]');
    expect(usage).toContain('gates revoke <gateId>');
  });
});
