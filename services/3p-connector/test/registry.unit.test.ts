import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createServiceStores } from '@marquee/platform/store';
import { randomIds } from '../src/adapters/ids.js';
import { createSecretBox } from '../src/adapters/secret-box.js';
import { createConnectorStorage } from '../src/adapters/stores.js';
import { PartnerRegistry } from '../src/app/registry.js';

function setup() {
  const secrets = createSecretBox(randomBytes(32));
  const storage = createConnectorStorage(createServiceStores(undefined), secrets);
  const started: [string, readonly string[]][] = [];
  const sut = new PartnerRegistry({
    partners: storage.partners,
    venueImports: storage.venueImports,
    queue: storage.queue,
    secrets,
    ids: randomIds,
    clock: () => new Date('2026-01-01T00:00:00Z'),
    imports: { importVenues: (id, venues) => started.push([id, venues]) },
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
