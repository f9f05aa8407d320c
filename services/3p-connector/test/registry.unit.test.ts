import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createServiceStores } from '@marquee/platform/store';
import { randomIds } from '../src/adapters/ids.js';
import { createSecretBox } from '../src/adapters/secret-box.js';
import { createConnectorStorage } from '../src/adapters/stores.js';
import { PartnerRegistry } from '../src/app/registry.js';
import { egressPolicy } from '../src/domain/egress.js';

function setup(
  options: {
    production?: boolean;
    allowedHosts?: string;
    resolveHost?: (host: string) => Promise<string[]>;
  } = {},
) {
  const secrets = createSecretBox([randomBytes(32)]);
  const storage = createConnectorStorage(createServiceStores(undefined), secrets);
  const started: [string, readonly string[]][] = [];
  const sut = new PartnerRegistry({
    partners: storage.partners,
    venueImports: storage.venueImports,
    queue: storage.queue,
    secrets,
    ids: randomIds,
    clock: { now: () => new Date('2026-01-01T00:00:00Z') },
    imports: { importVenues: (id, venues) => started.push([id, venues]) },
    egress: egressPolicy({
      requireHttps: options.production ?? false,
      allowedHosts: options.allowedHosts ?? '',
    }),
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
  });
  return { sut, storage, secrets, started };
}

const registration = {
  name: 'Ticket Hub (EU)',
  baseUrl: 'https://partner.example/v1/',
  authUrl: 'https://partner.example/oauth/token',
  clientId: 'marquee',
  clientSecret: 'very-secret',
  venues: ['V1', 'V2', 'V1'],
};

describe('PartnerRegistry', () => {
  it('registers a partner with its secret encrypted and starts importing its venues', async () => {
    const { sut, storage, secrets, started } = setup();
    const partner = await sut.register(registration);
    const stored = await storage.partners.get(partner.id);
    expect(JSON.stringify(stored)).not.toContain('very-secret');
    expect(secrets.decrypt(stored!.clientSecret)).toBe('very-secret');
    expect(stored).toMatchObject({
      slug: 'ticket-hub-eu',
      baseUrl: 'https://partner.example/v1',
      venues: ['V1', 'V2'],
      health: 'UNSPECIFIED',
    });
    expect(started).toEqual([[partner.id, ['V1', 'V2']]]);
  });

  it.each([
    ['a non-http base URL', { baseUrl: 'ftp://partner.example/v1' }],
    ['a relative auth URL', { authUrl: '/token' }],
    ['an empty name', { name: ' ' }],
    ['an empty secret', { clientSecret: '' }],
    ['a venue id with a slash', { venues: ['a/b'] }],
  ])('refuses %s as invalid_argument', async (_label, change) => {
    const { sut } = setup();
    await expect(sut.register({ ...registration, ...change })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });

  describe('egress rules at registration', () => {
    it.each([
      ['loopback', 'http://127.0.0.1:8090/v1', /loopback/],
      ['the cloud metadata endpoint (link-local)', 'http://169.254.169.254/latest', /linkLocal/],
      ['a private (RFC 1918) address', 'http://10.0.0.1/v1', /private/],
      ['a private 192.168 address', 'https://192.168.1.20/v1', /private/],
      ['a CGNAT address', 'https://100.64.0.1/v1', /carrierGradeNat/],
      ['IPv6 loopback', 'http://[::1]:8090/v1', /loopback/],
      ['an IPv6 unique-local (ULA) address', 'https://[fd00::1]/v1', /uniqueLocal/],
      ['an IPv4-mapped IPv6 private address', 'https://[::ffff:10.0.0.1]/v1', /private/],
      ['an unspecified address', 'http://0.0.0.0:8090/v1', /unspecified/],
      ['localhost', 'http://localhost:8090/v1', /internal name/],
      ['localhost with a root dot', 'http://LOCALHOST.:8090/v1', /internal name/],
      [
        'a cluster service name',
        'http://partner-reference.marquee.svc.cluster.local/v1',
        /internal name/,
      ],
      ['a single-label name', 'http://partner-reference:8090/v1', /single-label/],
      ['a metadata host name', 'http://metadata.google.internal/v1', /internal name/],
    ])(
      'refuses a base URL on %s with a clear invalid_argument',
      async (_label, baseUrl, reason) => {
        const { sut, storage, started } = setup();
        const refused = sut.register({ ...registration, baseUrl });
        await expect(refused).rejects.toMatchObject({
          kind: 'invalid_argument',
          message: expect.stringMatching(/^base_url must name a public host: /),
          details: { field: 'base_url' },
        });
        await expect(refused).rejects.toThrow(reason);
        expect(await storage.partners.list()).toEqual([]);
        expect(started).toEqual([]);
      },
    );

    it('refuses an internal token URL as well (the client secret is POSTed there)', async () => {
      const { sut } = setup();
      await expect(
        sut.register({ ...registration, authUrl: 'http://169.254.169.254/oauth/token' }),
      ).rejects.toMatchObject({ kind: 'invalid_argument', details: { field: 'auth_url' } });
    });

    it('refuses a host name that resolves to a private address', async () => {
      const looked: string[] = [];
      const { sut } = setup({
        resolveHost: async (host) => {
          looked.push(host);
          return host === 'partner.example' ? ['93.184.215.14', '10.0.0.1'] : ['93.184.215.14'];
        },
      });
      await expect(sut.register(registration)).rejects.toMatchObject({
        kind: 'invalid_argument',
        message: expect.stringContaining('partner.example resolves to a private address'),
      });
      expect(looked).toContain('partner.example');
    });

    it('accepts a name that resolves to public addresses only, or does not resolve yet', async () => {
      const publicOnly = setup({ resolveHost: async () => ['8.8.8.8', '2001:4860:4860::8888'] });
      await expect(publicOnly.sut.register(registration)).resolves.toMatchObject({
        baseUrl: 'https://partner.example/v1',
      });
      const unresolved = setup({
        resolveHost: () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })),
      });
      await expect(unresolved.sut.register(registration)).resolves.toBeDefined();
    });

    it('accepts a name whose resolver never answers, after its 2 s bound', async () => {
      const silent = setup({ resolveHost: () => new Promise<string[]>(() => undefined) });
      await expect(silent.sut.register(registration)).resolves.toMatchObject({
        baseUrl: 'https://partner.example/v1',
      });
    });

    it('accepts hosts listed in PARTNER_ALLOWED_HOSTS (names, addresses, ranges)', async () => {
      const { sut } = setup({
        allowedHosts: '127.0.0.1, [::1] partner-reference,10.20.0.0/16',
        resolveHost: async () => ['10.0.0.1'],
      });
      for (const baseUrl of [
        'http://127.0.0.1:8090/v1',
        'http://[::1]:8090/v1',
        'http://partner-reference:8090/v1',
        'http://10.20.3.4/v1',
      ]) {
        await expect(
          sut.register({ ...registration, baseUrl, authUrl: `${baseUrl}/token` }),
        ).resolves.toMatchObject({ baseUrl });
      }
      await expect(
        sut.register({ ...registration, baseUrl: 'http://10.0.0.1/v1' }),
      ).rejects.toMatchObject({ kind: 'invalid_argument' });
    });

    it('requires https in production, except to hosts listed in PARTNER_ALLOWED_HOSTS', async () => {
      const { sut } = setup({ production: true, allowedHosts: '127.0.0.1' });
      await expect(
        sut.register({ ...registration, baseUrl: 'http://partner.example/v1' }),
      ).rejects.toMatchObject({
        kind: 'invalid_argument',
        message: expect.stringMatching(/^base_url must be an https URL/),
      });
      await expect(
        sut.register({ ...registration, baseUrl: 'http://10.0.0.1/v1' }),
      ).rejects.toMatchObject({ kind: 'invalid_argument' });
      await expect(sut.register(registration)).resolves.toBeDefined();
      await expect(
        sut.register({
          ...registration,
          baseUrl: 'http://127.0.0.1:8090/v1',
          authUrl: 'http://127.0.0.1:8090/oauth/token',
        }),
      ).resolves.toBeDefined();
    });
  });

  it('lists several partners with venue import state, and answers not_found for an unknown one', async () => {
    const { sut } = setup();
    const a = await sut.register(registration);
    await sut.register({ ...registration, name: 'Other' });
    const sutList = await sut.list();
    expect(sutList).toHaveLength(2);
    expect(sutList[0]!.venues.map((v) => v.venueId)).toEqual(['V1', 'V2']);
    expect((await sut.get(a.id)).venues[0]).toMatchObject({ lastImportAt: null, lastError: '' });
    await expect(sut.get('nope')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('starts an import of listed venues only when they are registered', async () => {
    const { sut, started } = setup();
    const partner = await sut.register(registration);
    expect(await sut.startImport(partner.id, ['V2'])).toEqual(['V2']);
    expect(started.at(-1)).toEqual([partner.id, ['V2']]);
    await expect(sut.startImport(partner.id, ['V9'])).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });
});
