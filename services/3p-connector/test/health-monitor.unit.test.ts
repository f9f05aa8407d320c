import { systemClock } from '@marquee/platform/kernel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createLogger } from '@marquee/platform/logger';
import { createServiceStores } from '@marquee/platform/store';
import { createPartnerApiFactory } from '../src/adapters/partner-http.js';
import { egressPolicy } from '../src/domain/egress.js';
import { createSecretBox } from '../src/adapters/secret-box.js';
import { createConnectorStorage } from '../src/adapters/stores.js';
import { HealthMonitor, Scheduler } from '../src/app/health-monitor.js';
import { FakePartner } from './support/fake-partner.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let fake: FakePartner;
beforeEach(async () => {
  fake = await new FakePartner().start();
});
afterEach(() => fake.stop());

async function setup() {
  const secrets = createSecretBox([randomBytes(32)]);
  const storage = createConnectorStorage(createServiceStores(undefined), secrets);
  const partner = await storage.partners.create({
    id: 'p1',
    version: 1,
    name: 'P',
    slug: 'p',
    baseUrl: fake.baseUrl,
    authUrl: fake.authUrl,
    clientId: fake.clientId,
    clientSecret: secrets.encrypt(fake.clientSecret),
    venues: ['V1', 'V2'],
    health: 'UNSPECIFIED',
    healthMessage: '',
    healthCheckedAt: null,
    createdAt: new Date(),
  });
  const imports: [string, readonly string[]][] = [];
  const api = createPartnerApiFactory(secrets, {
    timeoutMs: 500,
    logger,
    maxAttempts: 1,
    egress: egressPolicy({ requireHttps: false, allowedHosts: '127.0.0.1' }),
  });
  const sut = new HealthMonitor({
    partners: storage.partners,
    api,
    imports: { importVenues: (id, venues) => imports.push([id, venues]) },
    clock: systemClock,
    log: logger,
  });
  return { sut, storage, partner, imports };
}

describe('HealthMonitor', () => {
  it('records a change once, backs off while the partner says 901', async () => {
    const { sut, storage, partner } = await setup();
    fake.on('GET', /^\/healthcheck$/, { status: 200, body: { id: 901, message: 'maintenance' } });
    expect(await sut.poll(partner, 1_000, 1_000)).toBe(2_000);
    const after = (await storage.partners.get('p1'))!;
    expect(after).toMatchObject({
      health: 'UNAVAILABLE',
      healthMessage: 'maintenance',
      version: 2,
    });
    expect(await sut.poll(after, 2_000, 1_000)).toBe(4_000);
    expect((await storage.partners.get('p1'))!.version).toBe(2);
  });

  it('imports the registered venues a 902 names', async () => {
    const { sut, partner, imports } = await setup();
    fake.on('GET', /^\/healthcheck$/, {
      status: 200,
      body: { id: 902, message: 'sync', venues_to_sync: ['V2', 'V9'] },
    });
    await sut.poll(partner, 1_000, 1_000);
    expect(imports).toEqual([['p1', ['V2']]]);
  });

  it('tells unreachable from unauthorized', async () => {
    const { sut, partner, storage } = await setup();
    fake.on('GET', /^\/healthcheck$/, { status: 500, body: { id: 2, message: 'down' } });
    await sut.poll(partner, 1_000, 1_000);
    expect((await storage.partners.get('p1'))!.health).toBe('UNREACHABLE');
    fake.on('GET', /^\/healthcheck$/, { status: 401, body: { id: 401, message: 'no' } });
    await sut.poll((await storage.partners.get('p1'))!, 1_000, 1_000);
    expect((await storage.partners.get('p1'))!.health).toBe('UNAUTHORIZED');
  });

  it('skips scheduled imports while the partner is unavailable', async () => {
    const { sut, storage } = await setup();
    const imports: string[] = [];
    const scheduler = new Scheduler({
      partners: storage.partners,
      monitor: sut,
      importer: { importVenues: (id) => imports.push(id) },
      healthIntervalMs: 60_000,
      importIntervalMs: 1_000,
      log: logger,
    });
    fake.on('GET', /^\/healthcheck$/, { status: 200, body: { id: 0, message: 'ok' } });
    await scheduler.tick(0);
    await scheduler.tick(1_000);
    expect(imports).toEqual(['p1']);
    const partner = (await storage.partners.get('p1'))!;
    await storage.partners.recordHealth(partner.id, {
      previous: partner.health,
      current: 'UNAVAILABLE',
      healthcheckId: 901,
      message: '',
      venuesToSync: [],
      checkedAt: new Date(),
    });
    await scheduler.tick(2_000);
    expect(imports).toEqual(['p1']);
  });
});
