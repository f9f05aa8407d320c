import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { viaRequest } from './fake-fetch.js';

interface Call {
  method: string;
  url: string;
  body: unknown;
}

/** A fake edge admin API: answers every call with `answer`, records the requests. */
function harness(answer: { status: number; body: unknown } = { status: 200, body: { ok: true } }) {
  const calls: Call[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const fakeFetch = viaRequest(async (url, init) => {
    calls.push({
      method: init.method ?? 'GET',
      url: String(url),
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    return new Response(JSON.stringify(answer.body), { status: answer.status });
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

const required = [
  '--name',
  'Box office',
  '--base-url',
  'https://partner.example/v1',
  '--auth-url',
  'https://partner.example/token',
  '--client-id',
  'marquee',
];

describe('marquee partners add', () => {
  it('registers with the secret read from a file and every --venue; prints the id', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'marquee-cli-'));
    const file = join(dir, 'secret');
    await writeFile(file, 's3cret\n');
    const sut = harness({ status: 201, body: { id: 'p-1' } });
    const code = await sut.run([
      'partners',
      'add',
      ...required,
      '--client-secret-file',
      file,
      '--venue',
      'V1',
      '--venue',
      'V2,V3',
    ]);
    expect(code).toBe(0);
    expect(sut.calls).toEqual([
      {
        method: 'POST',
        url: 'https://edge.test:8080/admin/v1/partners',
        body: {
          name: 'Box office',
          baseUrl: 'https://partner.example/v1',
          authUrl: 'https://partner.example/token',
          clientId: 'marquee',
          clientSecret: 's3cret',
          venues: ['V1', 'V2', 'V3'],
        },
      },
    ]);
    expect(JSON.parse(sut.out.join('\n'))).toEqual({ id: 'p-1' });
  });

  it('is a usage error (2) without a venue, a secret, or with both secret options', async () => {
    const sut = harness();
    expect(await sut.run(['partners', 'add', ...required, '--client-secret', 'x'])).toBe(2);
    expect(await sut.run(['partners', 'add', ...required, '--venue', 'V1'])).toBe(2);
    expect(
      await sut.run([
        'partners',
        'add',
        ...required,
        '--venue',
        'V1',
        '--client-secret',
        'x',
        '--client-secret-file',
        '/nonexistent',
      ]),
    ).toBe(2);
    expect(sut.calls).toEqual([]);
    expect(sut.err.join('\n')).toContain('usage: marquee partners add');
  });

  it('exits 1 with the API error when the edge refuses', async () => {
    const sut = harness({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'body/baseUrl must match format "uri"' } },
    });
    const code = await sut.run([
      'partners',
      'add',
      ...required,
      '--client-secret',
      'x',
      '--venue',
      'V1',
    ]);
    expect(code).toBe(1);
    expect(sut.err.join('\n')).toContain('admin API answered 400');
  });
});

describe('marquee partners list | show | import | queue', () => {
  it('calls the matching admin routes', async () => {
    const sut = harness();
    expect(await sut.run(['partners', 'list'])).toBe(0);
    expect(await sut.run(['partners', 'show', 'p 1'])).toBe(0);
    expect(await sut.run(['partners', 'import', 'p-1'])).toBe(0);
    expect(await sut.run(['partners', 'import', 'p-1', '--venue', 'V2'])).toBe(0);
    expect(await sut.run(['partners', 'queue', '--partner', 'p-1'])).toBe(0);
    expect(
      sut.calls.map((c) => [c.method, c.url.replace('https://edge.test:8080', ''), c.body]),
    ).toEqual([
      ['GET', '/admin/v1/partners', undefined],
      ['GET', '/admin/v1/partners/p%201', undefined],
      ['POST', '/admin/v1/partners/p-1/imports', {}],
      ['POST', '/admin/v1/partners/p-1/imports', { venues: ['V2'] }],
      ['GET', '/admin/v1/partners/queued-calls?partnerId=p-1', undefined],
    ]);
  });

  it('needs the partner id for show and import', async () => {
    const sut = harness();
    expect(await sut.run(['partners', 'show'])).toBe(2);
    expect(await sut.run(['partners', 'import'])).toBe(2);
    expect(sut.calls).toEqual([]);
  });
});
