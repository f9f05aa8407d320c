import { describe, expect, it } from 'vitest';
import type { AppRepository, FanRepository } from '../src/app/ports.js';
import type { DeveloperApp } from '../src/domain/app.js';
import type { Fan } from '../src/domain/fan.js';

let seq = 0;
const unique = () =>
  `${Date.now().toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export const anApp = (overrides: Partial<DeveloperApp> = {}): DeveloperApp => ({
  id: `app-${unique()}`,
  name: 'Example app',
  clientId: `client-${unique()}`,
  clientSecretHash: '$argon2id$fake',
  apiKeyFingerprint: `fp-${unique()}`,
  redirectUris: ['https://app.example/callback'],
  status: 'active',
  quota: { perDay: 5000, perSecond: 5 },
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  ...overrides,
});

export const aFan = (overrides: Partial<Fan> = {}): Fan => ({
  id: `fan-${unique()}`,
  email: `fan-${unique()}@example.com`,
  passwordHash: '$argon2id$fake',
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  ...overrides,
});

export interface RepositoryFixture {
  apps: AppRepository;
  fans: FanRepository;
}

/** One suite, run on the memory stores (unit) and on the Mongo-wire server (integration). */
export function repositoryContract(name: string, make: () => Promise<RepositoryFixture>): void {
  describe(`${name}: apps`, () => {
    it('finds a stored app by id, client id and API-key fingerprint, exactly as stored', async () => {
      const sut = (await make()).apps;
      const app = anApp();
      await sut.insert(app);
      expect(await sut.byId(app.id)).toEqual(app);
      expect(await sut.byClientId(app.clientId)).toEqual(app);
      expect(await sut.byApiKeyFingerprint(app.apiKeyFingerprint)).toEqual(app);
    });

    it('answers undefined for unknown ids, client ids and keys', async () => {
      const sut = (await make()).apps;
      expect(await sut.byId('nope')).toBeUndefined();
      expect(await sut.byClientId('nope')).toBeUndefined();
      expect(await sut.byApiKeyFingerprint('nope')).toBeUndefined();
    });

    it('refuses a second app with the same client id or API key', async () => {
      const sut = (await make()).apps;
      const app = anApp();
      await sut.insert(app);
      await expect(sut.insert(anApp({ clientId: app.clientId }))).rejects.toMatchObject({
        kind: 'already_exists',
      });
      await expect(
        sut.insert(anApp({ apiKeyFingerprint: app.apiKeyFingerprint })),
      ).rejects.toMatchObject({ kind: 'already_exists' });
    });
  });

  describe(`${name}: fans`, () => {
    it('finds a fan by id and e-mail', async () => {
      const sut = (await make()).fans;
      const fan = aFan();
      await sut.insert(fan);
      expect(await sut.byId(fan.id)).toEqual(fan);
      expect(await sut.byEmail(fan.email)).toEqual(fan);
      expect(await sut.byEmail('other@example.com')).toBeUndefined();
    });

    it('refuses a second fan with the same e-mail', async () => {
      const sut = (await make()).fans;
      const fan = aFan();
      await sut.insert(fan);
      await expect(sut.insert(aFan({ email: fan.email }))).rejects.toMatchObject({
        kind: 'already_exists',
      });
    });
  });
}
