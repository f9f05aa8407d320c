import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

/** A fake edge admin API that knows one fan and one app. */
function harness() {
  const calls: Array<{ method: string; url: string; authorization: string | null }> = [];
  const out: string[] = [];
  const err: string[] = [];
  const fakeFetch = viaRequest(async (url, init) => {
    const method = init.method ?? 'GET';
    calls.push({
      method,
      url: String(url),
      authorization: new Headers(init.headers).get('authorization'),
    });
    if (method === 'DELETE' && String(url).endsWith('/admin/v1/fans/F1/grants/C1'))
      return new Response(null, { status: 204 });
    if (method === 'DELETE' && String(url).endsWith('/admin/v1/fans/F1'))
      return new Response(null, { status: 204 });
    return new Response(JSON.stringify({ error: { code: 'not_found', message: 'unknown fan' } }), {
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

describe('marquee fans revoke-grant', () => {
  it('sends DELETE /admin/v1/fans/{fanId}/grants/{clientId} with the admin token and confirms', async () => {
    const sut = harness();
    expect(await sut.run(['fans', 'revoke-grant', 'F1', 'C1'])).toBe(0);
    expect(sut.calls).toEqual([
      {
        method: 'DELETE',
        url: 'https://edge.test:8080/admin/v1/fans/F1/grants/C1',
        authorization: 'Bearer admin-token-123456',
      },
    ]);
    expect(JSON.parse(sut.out.join('\n'))).toEqual({ fanId: 'F1', clientId: 'C1', revoked: true });
  });

  it('an unknown fan or app exits 1 with the API error', async () => {
    const sut = harness();
    expect(await sut.run(['fans', 'revoke-grant', 'nope', 'C1'])).toBe(1);
    expect(sut.err.join('\n')).toMatch(/404/);
  });

  it('missing or extra arguments are a usage error (exit 2), no call', async () => {
    const sut = harness();
    expect(await sut.run(['fans', 'revoke-grant', 'F1'])).toBe(2);
    expect(await sut.run(['fans', 'revoke-grant', 'F1', 'C1', 'extra'])).toBe(2);
    expect(sut.calls).toEqual([]);
  });
});

describe('marquee fans delete', () => {
  it('sends DELETE /admin/v1/fans/{fanId} with the admin token and confirms', async () => {
    const sut = harness();
    expect(await sut.run(['fans', 'delete', 'F1'])).toBe(0);
    expect(sut.calls).toEqual([
      {
        method: 'DELETE',
        url: 'https://edge.test:8080/admin/v1/fans/F1',
        authorization: 'Bearer admin-token-123456',
      },
    ]);
    expect(JSON.parse(sut.out.join('\n'))).toEqual({ fanId: 'F1', deleted: true });
  });

  it('an unknown fan exits 1 with the API error', async () => {
    const sut = harness();
    expect(await sut.run(['fans', 'delete', 'nope'])).toBe(1);
    expect(sut.err.join('\n')).toMatch(/404/);
  });

  it('a missing or extra argument is a usage error (exit 2), no call', async () => {
    const sut = harness();
    expect(await sut.run(['fans', 'delete'])).toBe(2);
    expect(await sut.run(['fans', 'delete', 'F1', 'extra'])).toBe(2);
    expect(sut.calls).toEqual([]);
  });
});
