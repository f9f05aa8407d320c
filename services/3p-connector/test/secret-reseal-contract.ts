import { randomBytes } from 'node:crypto';
import { secretBoxKeyId } from '@marquee/platform/crypto';
import { sealedBeforeKeyIds } from '@marquee/platform/testing';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../src/adapters/secret-box.js';
import type { ConnectorStorage } from '../src/adapters/stores.js';
import type { SealedRecordStore, SecretBox } from '../src/app/ports.js';
import { SecretReseal } from '../src/app/secret-reseal.js';
import { toDiscoveryEvent } from '../src/domain/event-mapping.js';
import type { ImportedEvent } from '../src/domain/imported-event.js';
import type { EncryptedSecret, Partner } from '../src/domain/partner.js';
import { manifest, partnerEvent } from './support/fixtures.js';

/** The connector's box over a ring that the test changes, as a restart with new settings would. */
function switchableBox(...keys: Buffer[]) {
  let box = createSecretBox(keys);
  const secrets: SecretBox = {
    get keyId() {
      return box.keyId;
    },
    encrypt: (plain) => box.encrypt(plain),
    decrypt: (sealed) => box.decrypt(sealed),
  };
  return { secrets, ring: (...next: Buffer[]) => void (box = createSecretBox(next)) };
}

function recordingLog() {
  const lines: string[] = [];
  const line = (fields: object, message: string) =>
    void lines.push(`${message} ${JSON.stringify(fields)}`);
  return { lines, log: { info: line, warn: line, error: line } };
}

const at = new Date('2026-02-01T00:00:00Z');

const aPartner = (id: string, clientSecret: EncryptedSecret): Partner => ({
  id,
  version: 1,
  name: `Partner ${id}`,
  slug: id,
  baseUrl: 'https://partner.example/v1',
  authUrl: 'https://partner.example/oauth/token',
  clientId: 'marquee',
  clientSecret,
  venues: ['V1'],
  health: 'UNSPECIFIED',
  healthMessage: '',
  healthCheckedAt: null,
  createdAt: at,
});

function anEvent(id: string, codes: string[]): ImportedEvent {
  const answer = { event: partnerEvent(), status: 'ON_SALE' };
  const partner = { id: 'p1', slug: 'p1' };
  return {
    id,
    version: 0,
    partnerId: 'p1',
    partnerEventId: `PE-${id}`,
    partnerVenueId: 'V1',
    lastModification: at,
    partnerStatus: 'ON_SALE',
    manifestId: 'M1',
    accessCodes: codes.map((code, i) => ({ priceTypeId: `PT${i}`, code })),
    event: toDiscoveryEvent({
      id,
      version: 1,
      partner,
      venueId: 'V1',
      answer,
      manifest,
      createdAt: at,
      updatedAt: at,
    }),
    availabilitySequence: 0,
    createdAt: at,
    updatedAt: at,
  };
}

const reseal = (storage: ConnectorStorage, secrets: SecretBox, log = recordingLog().log) =>
  new SecretReseal({ stores: storage.sealed, secrets, log }).run();

/**
 * The re-seal of partner secrets over one storage: `open` gives a fresh, empty one over `secrets`
 * (memory in the unit tier, the Mongo-wire server in the integration tier).
 */
export function secretResealContract(
  name: string,
  open: (secrets: SecretBox) => Promise<ConnectorStorage>,
) {
  describe(`re-seal of partner secrets (${name})`, () => {
    it('re-seals client secrets and access codes under the first key; the old key can go', async () => {
      const [old, next] = [randomBytes(32), randomBytes(32)];
      const { secrets, ring } = switchableBox(old);
      const storage = await open(secrets);
      const count = 230; // more than a page of the walk
      for (let i = 0; i < count; i += 1) {
        const id = `p${String(i).padStart(3, '0')}`;
        const plain = `secret-${id}`;
        await storage.partners.create(
          aPartner(id, i % 2 === 0 ? sealedBeforeKeyIds(old, plain) : secrets.encrypt(plain)),
        );
      }
      await storage.importedEvents.create(anEvent('EvOne0000000001', ['code-1', 'code-2']));
      await storage.importedEvents.create(anEvent('EvTwo0000000002', []));
      ring(next, old); // the new key first, the old one second
      await storage.importedEvents.create(anEvent('EvNew0000000003', ['code-3']));
      const { lines, log } = recordingLog();

      expect(await reseal(storage, secrets, log)).toEqual({
        resealed: count + 2,
        alreadyCurrent: 1,
        failed: 0,
        collections: {
          partners: { resealed: count, alreadyCurrent: 0, failed: 0 },
          imported_events: { resealed: 2, alreadyCurrent: 1, failed: 0 },
        },
      });
      expect(await reseal(storage, secrets)).toMatchObject({
        resealed: 0,
        alreadyCurrent: count + 3,
        failed: 0,
      });

      ring(next); // the old key dropped
      for (const partner of await storage.partners.list()) {
        expect(partner.clientSecret.kid).toBe(secretBoxKeyId(next));
        expect(secrets.decrypt(partner.clientSecret)).toBe(`secret-${partner.id}`);
      }
      const one = (await storage.importedEvents.get('EvOne0000000001'))!;
      expect(one.accessCodes.map((c) => c.code)).toEqual(['code-1', 'code-2']);
      expect(one.event.names).toEqual(anEvent('EvOne0000000001', []).event.names);
      expect(lines.join('\n')).not.toMatch(/could not be opened/);
    });

    it('counts and logs a value no key opens, by record id only, and keeps it', async () => {
      const { secrets, ring } = switchableBox(randomBytes(32));
      const storage = await open(secrets);
      const lost = secrets.encrypt('lost-secret');
      await storage.partners.create(aPartner('p-lost', lost));
      ring(randomBytes(32), randomBytes(32));
      const { lines, log } = recordingLog();
      expect(await reseal(storage, secrets, log)).toMatchObject({
        resealed: 0,
        alreadyCurrent: 0,
        failed: 1,
      });
      expect((await storage.partners.get('p-lost'))!.clientSecret).toEqual(lost);
      const logged = lines.join('\n');
      expect(logged).toContain('p-lost');
      expect(logged).not.toContain('lost-secret');
      expect(logged).not.toContain(lost.data);
    });

    it('loses no concurrent write: a lost compare-and-set reads again', async () => {
      const [old, next] = [randomBytes(32), randomBytes(32)];
      const { secrets, ring } = switchableBox(old);
      const storage = await open(secrets);
      const id = 'EvBusy000000001';
      await storage.importedEvents.create(anEvent(id, ['busy-code']));
      ring(next, old);
      let raced = false;
      const racing = storage.sealed.map((store): SealedRecordStore => ({
        ...store,
        async reseal(record, sealed) {
          if (!raced && store.name === 'imported_events') {
            raced = true;
            // An availability check lands between the job's read and its write.
            await storage.importedEvents.recordAvailability(id, (sequence) => ({
              eventId: id,
              partnerId: 'p1',
              partnerEventId: `PE-${id}`,
              scope: 'FULL',
              areas: [],
              totalAvailable: 0,
              observedAt: at,
              sequence,
            }));
          }
          return store.reseal(record, sealed);
        },
      }));
      const report = await new SecretReseal({
        stores: racing,
        secrets,
        log: recordingLog().log,
      }).run();
      expect(raced).toBe(true);
      expect(report).toMatchObject({ resealed: 1, failed: 0 });
      ring(next);
      const stored = (await storage.importedEvents.get(id))!;
      expect(stored.availabilitySequence).toBe(1);
      expect(stored.accessCodes[0]!.code).toBe('busy-code');
    });
  });
}
