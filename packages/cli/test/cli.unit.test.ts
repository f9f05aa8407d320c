import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

function harness(answer: (call: Call) => { status: number; body: unknown }, env = {}) {
  const calls: Call[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const fakeFetch = viaRequest(async (url, init) => {
    const call = {
      url: String(url),
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    };
    calls.push(call);
    const { status, body } = answer(call);
    return new Response(JSON.stringify(body), { status });
  });
  const run = (argv: string[], stdin = '') =>
    runCli(argv, {
      env: { MARQUEE_URL: 'https://edge.test:8080', ADMIN_TOKEN: 'admin-token-123456', ...env },
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      readStdin: async () => stdin,
      fetch: fakeFetch,
    });
  return { run, calls, out, err };
}

describe('marquee CLI', () => {
  it('apps create posts name and every redirect URI with the admin token, and prints the credentials', async () => {
    const sut = harness(() => ({
      status: 201,
      body: { apiKey: 'k', clientId: 'c', clientSecret: 's' },
    }));
    const code = await sut.run([
      'apps',
      'create',
      '--name',
      'My app',
      '--redirect-uri',
      'https://a.example/cb',
      '--redirect-uri',
      'http://localhost:3000/cb',
    ]);
    expect(code).toBe(0);
    expect(sut.calls).toEqual([
      {
        url: 'https://edge.test:8080/admin/v1/apps',
        method: 'POST',
        headers: {
          authorization: 'Bearer admin-token-123456',
          'content-type': 'application/json',
          // a new one per request, which the edge logs and echoes
          'x-correlation-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
        },
        body: {
          name: 'My app',
          redirectUris: ['https://a.example/cb', 'http://localhost:3000/cb'],
        },
      },
    ]);
    expect(JSON.parse(sut.out.join('\n'))).toEqual({
      apiKey: 'k',
      clientId: 'c',
      clientSecret: 's',
    });
  });

  it('apps create sends a per-app quota when asked, and refuses a bad number', async () => {
    const sut = harness(() => ({
      status: 201,
      body: { apiKey: 'k', clientId: 'c', clientSecret: 's' },
    }));
    const base = ['apps', 'create', '--name', 'Big', '--redirect-uri', 'https://big.example/cb'];
    expect(await sut.run([...base, '--quota-per-day', '100000', '--quota-per-second', '20'])).toBe(
      0,
    );
    expect(sut.calls[0]!.body).toEqual({
      name: 'Big',
      redirectUris: ['https://big.example/cb'],
      quota: { perDay: 100000, perSecond: 20 },
    });
    expect(await sut.run([...base, '--quota-per-second', '0'])).toBe(2);
    expect(await sut.run([...base, '--quota-per-day', 'lots'])).toBe(2);
    expect(sut.calls).toHaveLength(1);
  });

  it('fans create reads the password from stdin so it never shows in ps', async () => {
    const sut = harness(() => ({ status: 201, body: { id: 'fan-1' } }));
    const code = await sut.run(
      ['fans', 'create', '--email', 'ann@example.com', '--password-stdin'],
      'secret passphrase\n',
    );
    expect(code).toBe(0);
    expect(sut.calls[0]!.body).toEqual({ email: 'ann@example.com', password: 'secret passphrase' });
    expect(JSON.parse(sut.out.join('\n'))).toEqual({ id: 'fan-1' });
  });

  it('exits 1 and prints the API error body when the edge refuses', async () => {
    const sut = harness(() => ({
      status: 409,
      body: { error: { code: 'already_exists', message: 'taken' } },
    }));
    const code = await sut.run(['fans', 'create', '--email', 'a@b.co', '--password', 'longenough']);
    expect(code).toBe(1);
    expect(sut.err.join('\n')).toContain('409');
    expect(sut.err.join('\n')).toContain('already_exists');
  });

  it('exits 2 with the usage on a missing option, an unknown flag or an unknown command', async () => {
    const sut = harness(() => ({ status: 500, body: {} }));
    expect(await sut.run(['apps', 'create', '--name', 'x'])).toBe(2);
    expect(await sut.run(['apps', 'create', '--nope'])).toBe(2);
    expect(await sut.run(['tickets', 'print'])).toBe(2);
    expect(sut.calls).toEqual([]);
    expect(sut.err.join('\n')).toContain('usage');
  });

  it('refuses to run without ADMIN_TOKEN', async () => {
    const sut = harness(() => ({ status: 201, body: {} }), { ADMIN_TOKEN: '' });
    expect(await sut.run(['apps', 'create', '--name', 'x', '--redirect-uri', 'https://a/cb'])).toBe(
      2,
    );
    expect(sut.err.join('\n')).toContain('ADMIN_TOKEN');
  });

  it.each([
    'http://edge.example.com',
    'http://10.0.0.5:8080',
    'http://192.168.1.10',
    'http://marquee.internal:8080',
    'http://[2001:db8::1]:8080',
  ])('refuses to send ADMIN_TOKEN over plain http to %s, sending nothing', async (url) => {
    const sut = harness(() => ({ status: 200, body: { partners: [] } }), { MARQUEE_URL: url });
    expect(await sut.run(['partners', 'list'])).toBe(2);
    expect(sut.calls).toEqual([]);
    const message = sut.err.join('\n');
    expect(message).toContain('refusing to send ADMIN_TOKEN over plain http');
    expect(message).toContain('use an https MARQUEE_URL');
    expect(message).not.toContain('admin-token-123456');
  });

  it('refuses a MARQUEE_URL that is not a URL or not http(s)', async () => {
    for (const url of ['edge.example.com', 'ftp://edge.example.com']) {
      const sut = harness(() => ({ status: 200, body: {} }), { MARQUEE_URL: url });
      expect(await sut.run(['partners', 'list'])).toBe(2);
      expect(sut.calls).toEqual([]);
      expect(sut.err.join('\n')).toContain('MARQUEE_URL');
    }
  });

  it.each([
    'http://127.0.0.1:8080',
    'http://127.1.2.3:8080',
    'http://localhost:8080',
    'http://[::1]:8080',
    'https://edge.example.com',
  ])('sends to %s (https, or plain http to loopback)', async (url) => {
    const sut = harness(() => ({ status: 200, body: { partners: [] } }), { MARQUEE_URL: url });
    expect(await sut.run(['partners', 'list'])).toBe(0);
    expect(sut.calls).toHaveLength(1);
    expect(new URL(sut.calls[0]!.url).host).toBe(new URL(url).host);
  });

  it('defaults to the loopback edge of the embedded default', async () => {
    const sut = harness(() => ({ status: 200, body: { partners: [] } }), { MARQUEE_URL: '' });
    expect(await sut.run(['partners', 'list'])).toBe(0);
    expect(sut.calls[0]!.url).toBe('http://127.0.0.1:8080/admin/v1/partners');
  });
});
