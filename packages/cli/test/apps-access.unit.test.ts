import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

/** A fake edge admin API that knows one app. */
function harness() {
  const calls: Array<{ method: string; url: string; body: unknown }> = [];
  const out: string[] = [];
  const err: string[] = [];
  let access = { commerceShopping: false, partnerDistribution: false };
  const fakeFetch = viaRequest(async (url, init) => {
    const method = init.method ?? 'GET';
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, url: String(url), body });
    if (String(url).endsWith('/admin/v1/apps/app-1') && method === 'GET') {
      return new Response(
        JSON.stringify({ appId: 'app-1', name: 'Shop', trackingId: 'mqt_abc', access }),
        { status: 200 },
      );
    }
    if (String(url).endsWith('/admin/v1/apps/app-1/access')) {
      if (method === 'PATCH') access = { ...access, ...body };
      return new Response(JSON.stringify({ appId: 'app-1', access }), { status: 200 });
    }
    return new Response(JSON.stringify({ error: { code: 'not_found', message: 'unknown app' } }), {
      status: 404,
    });
  });
  const run = (argv: string[]) =>
    runCli(argv, {
      env: { MARQUEE_URL: 'https://edge.test:8080', ADMIN_TOKEN: 'admin-token-123456' },
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      readStdin: async () => '',
      fetch: fakeFetch,
    });
  return { run, calls, out, err };
}

describe('marquee apps get', () => {
  it('reads the app with GET /admin/v1/apps/{appId}, its tracking id shown', async () => {
    const sut = harness();
    expect(await sut.run(['apps', 'get', 'app-1'])).toBe(0);
    expect(JSON.parse(sut.out.pop()!)).toMatchObject({ appId: 'app-1', trackingId: 'mqt_abc' });
    expect(sut.calls).toEqual([
      { method: 'GET', url: 'https://edge.test:8080/admin/v1/apps/app-1', body: undefined },
    ]);
    expect(await sut.run(['apps', 'get', 'app-2'])).not.toBe(0);
  });
});

describe('marquee apps approve | unapprove | access', () => {
  it('approves and withdraws commerce shopping with PATCH /admin/v1/apps/{appId}/access', async () => {
    const sut = harness();
    expect(await sut.run(['apps', 'approve', 'app-1', '--commerce'])).toBe(0);
    expect(JSON.parse(sut.out.pop()!)).toEqual({
      appId: 'app-1',
      access: { commerceShopping: true, partnerDistribution: false },
    });
    expect(await sut.run(['apps', 'access', 'app-1'])).toBe(0);
    expect(JSON.parse(sut.out.pop()!).access).toEqual({
      commerceShopping: true,
      partnerDistribution: false,
    });
    expect(await sut.run(['apps', 'unapprove', 'app-1', '--commerce'])).toBe(0);
    expect(JSON.parse(sut.out.pop()!).access).toEqual({
      commerceShopping: false,
      partnerDistribution: false,
    });
    expect(sut.calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['PATCH', 'https://edge.test:8080/admin/v1/apps/app-1/access', { commerceShopping: true }],
      ['GET', 'https://edge.test:8080/admin/v1/apps/app-1/access', undefined],
      ['PATCH', 'https://edge.test:8080/admin/v1/apps/app-1/access', { commerceShopping: false }],
    ]);
  });

  it('grants and withdraws partner distribution (--distribution), alone or with --commerce', async () => {
    const sut = harness();
    expect(await sut.run(['apps', 'approve', 'app-1', '--distribution'])).toBe(0);
    expect(JSON.parse(sut.out.pop()!).access).toEqual({
      commerceShopping: false,
      partnerDistribution: true,
    });
    expect(await sut.run(['apps', 'unapprove', 'app-1', '--distribution', '--commerce'])).toBe(0);
    expect(sut.calls.map((c) => c.body)).toEqual([
      { partnerDistribution: true },
      { commerceShopping: false, partnerDistribution: false },
    ]);
  });

  it('an unknown app exits 1 with the API error', async () => {
    const sut = harness();
    expect(await sut.run(['apps', 'approve', 'nope', '--commerce'])).toBe(1);
    expect(sut.err.join('\n')).toMatch(/404/);
  });

  it('no service flag, no app id or extra arguments are usage errors (exit 2), no call', async () => {
    const sut = harness();
    expect(await sut.run(['apps', 'approve', 'app-1'])).toBe(2);
    expect(await sut.run(['apps', 'approve', '--commerce'])).toBe(2);
    expect(await sut.run(['apps', 'unapprove', 'app-1', 'app-2', '--commerce'])).toBe(2);
    expect(await sut.run(['apps', 'approve', 'app-1', '--everything'])).toBe(2);
    expect(sut.calls).toEqual([]);
  });
});
