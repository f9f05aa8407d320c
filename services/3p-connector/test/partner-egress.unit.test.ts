import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedLookup, type Resolver } from '../src/adapters/egress-agent.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  PartnerHttpClient,
  type PartnerCallError,
  type PartnerHttpOptions,
} from '../src/adapters/partner-http.js';
import { egressPolicy } from '../src/domain/egress.js';
import { silentLogger } from '@marquee/platform/testing';
import { FakePartner } from './support/fake-partner.js';
import { healthAnswer } from './support/fixtures.js';

const logger = silentLogger();
const health = healthAnswer;
const strict = egressPolicy({ requireHttps: false });
const MiB = 1024 * 1024;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakePartner(): Promise<FakePartner> {
  const fake = await new FakePartner().start();
  cleanups.push(() => fake.stop());
  return fake;
}

async function server(handler: Parameters<typeof createServer>[1]): Promise<{ port: number }> {
  const http: Server = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return { port: (http.address() as AddressInfo).port };
}

const client = (
  urls: { baseUrl: string; authUrl: string },
  options: Partial<PartnerHttpOptions> = {},
) =>
  new PartnerHttpClient(
    {
      id: 'p1',
      baseUrl: urls.baseUrl,
      authUrl: urls.authUrl,
      clientId: 'marquee',
      clientSecret: () => 'secret-of-marquee',
    },
    { timeoutMs: 3_000, logger, retryDelayMs: 1, maxAttempts: 1, egress: strict, ...options },
  );

const failure = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  )) as PartnerCallError;

/** A dispatcher that sends nothing anywhere: a call that got past the checks fails loudly. */
function noNetwork(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  cleanups.push(() => agent.close());
  return agent;
}

describe('partner calls at call time (egress policy)', () => {
  it.each([
    ['loopback', 'http://127.0.0.1:8090'],
    ['the cloud metadata endpoint', 'http://169.254.169.254'],
    ['a private address', 'http://10.0.0.1'],
  ])('refuses a stored partner URL on %s without sending anything', async (_label, origin) => {
    const sut = client(
      { baseUrl: `${origin}/v1`, authUrl: `${origin}/oauth/token` },
      { dispatcher: noNetwork() },
    );
    const error = await failure(sut.healthcheck());
    expect(error).toMatchObject({
      kind: 'failed_precondition',
      transient: false,
      outcomeUnknown: false,
      details: { egressRefused: true },
    });
    expect(error.refusal).toMatch(/^auth_url must name a public host/);
    // The reason stays out of the message, which cart may pass on to a public caller.
    expect(error.message).toBe(
      "partner call refused: the partner's address is not allowed (PARTNER_ALLOWED_HOSTS)",
    );
  });

  it('refuses the partner on loopback unless PARTNER_ALLOWED_HOSTS lists it', async () => {
    const fake = await fakePartner();
    fake.on('GET', /^\/healthcheck$/, health);
    const refused = await failure(client(fake).healthcheck());
    expect(refused.kind).toBe('failed_precondition');
    expect(fake.requests).toEqual([]);
    const allowed = client(fake, {
      egress: egressPolicy({ requireHttps: false, allowedHosts: '127.0.0.1' }),
    });
    await expect(allowed.healthcheck()).resolves.toMatchObject({ id: 0 });
  });

  it('requires https in production to a host not listed', async () => {
    const fake = await fakePartner();
    const sut = client(
      {
        baseUrl: `http://partner.test:${fake.port}/v1`,
        authUrl: `http://partner.test:${fake.port}/oauth/token`,
      },
      {
        egress: egressPolicy({ requireHttps: true, allowedHosts: '127.0.0.1' }),
        resolver: async () => [{ address: '127.0.0.1', family: 4 }],
      },
    );
    const error = await failure(sut.healthcheck());
    expect(error.refusal).toContain('auth_url must be an https URL');
    expect(fake.requests).toEqual([]);
  });

  it('refuses a host name that resolves to an internal address, and connects to the resolved address when allowed', async () => {
    const fake = await fakePartner();
    fake.on('GET', /^\/healthcheck$/, health);
    const lookups: string[] = [];
    // partner.test has an address only in this test: loopback, where the fake partner listens.
    const resolver: Resolver = async (host) => {
      lookups.push(host);
      if (host !== 'partner.test') throw Object.assign(new Error(host), { code: 'ENOTFOUND' });
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const urls = {
      baseUrl: `http://partner.test:${fake.port}/v1`,
      authUrl: `http://partner.test:${fake.port}/oauth/token`,
    };
    const refused = await failure(client(urls, { resolver }).healthcheck());
    expect(refused).toMatchObject({
      kind: 'failed_precondition',
      details: { egressRefused: true },
    });
    expect(refused.refusal).toContain('partner.test resolves to a loopback address');
    expect(lookups).toEqual(['partner.test']);
    expect(fake.requests).toEqual([]);

    const allowed = client(urls, {
      resolver,
      egress: egressPolicy({ requireHttps: false, allowedHosts: 'partner.test' }),
    });
    await expect(allowed.healthcheck()).resolves.toMatchObject({ id: 0 });
    expect(fake.calls('GET', /healthcheck/)).toHaveLength(1);
  });

  it('judges every address a name resolves to, and hands the socket exactly the checked ones', async () => {
    const answers: Record<string, string[]> = {
      'mixed.test': ['8.8.8.8', '10.0.0.1'],
      'metadata.test': ['169.254.169.254'],
      'mapped.test': ['::ffff:10.0.0.1'],
      'public.test': ['8.8.8.8', '2001:4860:4860::8888'],
    };
    let resolutions = 0;
    const resolver: Resolver = async (host) => {
      resolutions += 1;
      return answers[host]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    const lookup = guardedLookup(strict, resolver);
    const run = (host: string) =>
      new Promise<{ error: Error | null; addresses: unknown }>((resolve) =>
        lookup(host, { all: true }, (error, addresses) => resolve({ error, addresses })),
      );
    for (const host of ['mixed.test', 'metadata.test', 'mapped.test']) {
      const { error } = await run(host);
      expect(error).toMatchObject({ code: 'EGRESS_REFUSED' });
    }
    expect(await run('public.test')).toEqual({
      error: null,
      addresses: [
        { address: '8.8.8.8', family: 4 },
        { address: '2001:4860:4860::8888', family: 6 },
      ],
    });
    // One resolution per connection: the address checked is the address connected to.
    expect(resolutions).toBe(4);
  });

  it('follows no redirect, not even for the token request carrying the client secret', async () => {
    let elsewhere = 0;
    const target = await server((_req, res) => {
      elsewhere += 1;
      res.end('{}');
    });
    const redirecting = await server((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${target.port}/steal` });
      res.end();
    });
    const origin = `http://127.0.0.1:${redirecting.port}`;
    const sut = client(
      { baseUrl: `${origin}/v1`, authUrl: `${origin}/oauth/token` },
      { egress: egressPolicy({ requireHttps: false, allowedHosts: '127.0.0.1' }) },
    );
    const error = await failure(sut.healthcheck());
    expect(error.kind).toBe('unavailable');
    expect(error.message).toContain('answered a redirect (307)');
    expect(elsewhere).toBe(0);
  });
});

describe('partner answer size cap', () => {
  it('defaults to 8 MiB', () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(8 * MiB);
  });

  /** A partner whose healthcheck streams `total` bytes (no content-length), counting what it wrote. */
  async function streamingPartner(total: number, declareLength = false) {
    const sent = { bytes: 0, closed: false };
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const { port } = await server((req, res) => {
      if (req.url === '/oauth/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            access_token: 't',
            token_type: 'Bearer',
            expires_in: '3600',
            scope: 'check:3p-system',
          }),
        );
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(declareLength ? { 'content-length': String(total) } : {}),
      });
      res.on('close', () => (sent.closed = true));
      const pump = () => {
        while (sent.bytes < total && !res.destroyed) {
          sent.bytes += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    const origin = `http://127.0.0.1:${port}`;
    return { sent, urls: { baseUrl: `${origin}/v1`, authUrl: `${origin}/oauth/token` } };
  }

  it('cuts a 20 MiB answer at the cap while it streams, without the process growing', async () => {
    const total = 20 * MiB;
    const { sent, urls } = await streamingPartner(total);
    const sut = client(urls, {
      egress: egressPolicy({ requireHttps: false, allowedHosts: '127.0.0.1' }),
      maxResponseBytes: MiB,
    });
    const before = process.memoryUsage();
    const error = await failure(sut.healthcheck());
    const after = process.memoryUsage();
    expect(error).toMatchObject({ kind: 'unavailable', details: { answerTooLarge: true } });
    expect(error.message).toBe(`partner answer to GET /healthcheck exceeds ${MiB} bytes`);
    // The connection was dropped: the partner could not finish writing its 20 MiB.
    await expect.poll(() => sent.closed).toBe(true);
    expect(sent.bytes).toBeLessThan(total / 2);
    // Reading the whole answer would hold it at least twice (bytes and string): 40 MiB.
    const grown = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    expect(grown).toBeLessThan(8 * MiB);
  });

  it('refuses at once an answer that declares a length over the cap', async () => {
    const { sent, urls } = await streamingPartner(20 * MiB, true);
    const sut = client(urls, {
      egress: egressPolicy({ requireHttps: false, allowedHosts: '127.0.0.1' }),
      maxResponseBytes: MiB,
    });
    const error = await failure(sut.healthcheck());
    expect(error.details).toMatchObject({ answerTooLarge: true });
    await expect.poll(() => sent.closed).toBe(true);
    expect(sent.bytes).toBeLessThan(10 * MiB);
  });

  it('still reads an answer under the cap', async () => {
    const fake = await fakePartner();
    fake.on('GET', /^\/healthcheck$/, {
      status: 200,
      body: { id: 0, message: 'x'.repeat(100_000) },
    });
    const sut = client(fake, {
      egress: egressPolicy({ requireHttps: false, allowedHosts: '127.0.0.1' }),
      maxResponseBytes: 200_000,
    });
    await expect(sut.healthcheck()).resolves.toMatchObject({ id: 0 });
  });
});
