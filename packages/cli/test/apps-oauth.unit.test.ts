import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

/** A fake edge admin API that creates apps and knows the OAuth settings of one app. */
function harness() {
  const calls: Array<{ method: string; url: string; body: unknown }> = [];
  const out: string[] = [];
  const err: string[] = [];
  let oauth = { requirePkce: false, rotateRefreshTokens: false };
  const fakeFetch = viaRequest(async (url, init) => {
    const method = init.method ?? 'GET';
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, url: String(url), body });
    if (String(url).endsWith('/admin/v1/apps') && method === 'POST') {
      return new Response(
        JSON.stringify({ appId: 'app-1', apiKey: 'k', clientId: 'c', clientSecret: 's' }),
        { status: 201 },
      );
    }
    if (String(url).endsWith('/admin/v1/apps/app-1/oauth') && method === 'PATCH') {
      oauth = { ...oauth, ...body };
      return new Response(JSON.stringify({ appId: 'app-1', oauth }), { status: 200 });
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

const create = ['apps', 'create', '--name', 'Strict', '--redirect-uri', 'https://s.example/cb'];

describe('marquee apps create | update: OAuth settings', () => {
  it('apps create sends the OAuth settings named, and none otherwise', async () => {
    const sut = harness();
    expect(await sut.run([...create, '--require-pkce', '--rotate-refresh-tokens'])).toBe(0);
    expect(await sut.run([...create, '--require-pkce'])).toBe(0);
    expect(await sut.run(create)).toBe(0);
    expect(sut.calls.map((c) => c.body)).toEqual([
      {
        name: 'Strict',
        redirectUris: ['https://s.example/cb'],
        oauth: { requirePkce: true, rotateRefreshTokens: true },
      },
      { name: 'Strict', redirectUris: ['https://s.example/cb'], oauth: { requirePkce: true } },
      { name: 'Strict', redirectUris: ['https://s.example/cb'] },
    ]);
  });

  it('apps update turns settings on and off with PATCH /admin/v1/apps/{appId}/oauth and prints them', async () => {
    const sut = harness();
    expect(await sut.run(['apps', 'update', 'app-1', '--require-pkce'])).toBe(0);
    expect(JSON.parse(sut.out.pop()!)).toEqual({
      appId: 'app-1',
      oauth: { requirePkce: true, rotateRefreshTokens: false },
    });
    expect(
      await sut.run(['apps', 'update', 'app-1', '--no-require-pkce', '--rotate-refresh-tokens']),
    ).toBe(0);
    expect(JSON.parse(sut.out.pop()!).oauth).toEqual({
      requirePkce: false,
      rotateRefreshTokens: true,
    });
    expect(sut.calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['PATCH', 'https://edge.test:8080/admin/v1/apps/app-1/oauth', { requirePkce: true }],
      [
        'PATCH',
        'https://edge.test:8080/admin/v1/apps/app-1/oauth',
        { requirePkce: false, rotateRefreshTokens: true },
      ],
    ]);
  });

  it('apps update without a setting, with both forms of one, or without an app id is a usage error (exit 2), no call', async () => {
    const sut = harness();
    expect(await sut.run(['apps', 'update', 'app-1'])).toBe(2);
    expect(await sut.run(['apps', 'update', 'app-1', '--require-pkce', '--no-require-pkce'])).toBe(
      2,
    );
    expect(await sut.run(['apps', 'update', '--require-pkce'])).toBe(2);
    expect(await sut.run(['apps', 'update', 'app-1', '--pkce'])).toBe(2);
    expect(sut.calls).toEqual([]);
    expect(await sut.run(['apps', 'update', 'nope', '--require-pkce'])).toBe(1);
    expect(sut.err.join('\n')).toMatch(/404/);
  });
});
