import { randomBytes } from 'node:crypto';
import { secretBoxKeyId } from '@marquee/platform/crypto';
import { sealedBeforeKeyIds } from '@marquee/platform/testing';
import { describe, expect, it } from 'vitest';
import { createEntryCrypto } from '../src/adapters/entry-crypto.js';
import type { EntryStorage } from '../src/adapters/stores.js';
import type { TicketRepository } from '../src/app/ports.js';
import { TicketSecretReseal } from '../src/app/ticket-secret-reseal.js';
import { aTicket } from './storage-contract.js';
import { testKeys } from './support/fixtures.js';

const crypto = (...secretKeys: Buffer[]) =>
  createEntryCrypto({ tokenKeys: testKeys(), secretKeys });

function recordingLog() {
  const lines: string[] = [];
  const log = {
    info: (fields: object, message: string) => lines.push(`${message} ${JSON.stringify(fields)}`),
    warn: (fields: object, message: string) => lines.push(`${message} ${JSON.stringify(fields)}`),
  };
  return { lines, log };
}

/**
 * The re-seal of ticket secrets over one storage: `open` gives a fresh, empty one (memory in the
 * unit tier, the Mongo-wire server in the integration tier).
 */
export function ticketSecretResealContract(name: string, open: () => Promise<EntryStorage>) {
  describe(`re-seal of ticket secrets (${name})`, () => {
    it('re-seals old-key and pre-key-id secrets under the first key; the old key can go', async () => {
      const { tickets } = await open();
      const [old, next] = [randomBytes(32), randomBytes(32)];
      const plain = new Map<string, string>();
      for (let i = 0; i < 450; i += 1) {
        const id = `t-${String(i).padStart(4, '0')}`;
        plain.set(id, randomBytes(32).toString('base64'));
        const secret =
          i % 3 === 0
            ? sealedBeforeKeyIds(old, plain.get(id)!)
            : (i % 3 === 1 ? crypto(old) : crypto(next)).encryptSecret(plain.get(id)!);
        await tickets.insertIfAbsent(
          aTicket(id, { secret, barcode: `4${String(i).padStart(15, '0')}` }),
        );
      }
      const { lines, log } = recordingLog();
      const during = crypto(next, old);
      const reseal = () => new TicketSecretReseal({ tickets, crypto: during, log }).run();

      expect(await reseal()).toEqual({ resealed: 300, alreadyCurrent: 150, failed: 0 });
      // Idempotent: nothing left to do, nothing written.
      expect(await reseal()).toEqual({ resealed: 0, alreadyCurrent: 450, failed: 0 });

      const after = crypto(next);
      for (const [id, value] of plain) {
        const ticket = (await tickets.get(id))!;
        expect(ticket.secret.kid).toBe(secretBoxKeyId(next));
        expect(after.decryptSecret(ticket.secret)).toBe(value);
      }
      expect(lines.join('\n')).not.toMatch(/ticket secret could not/);
    });

    it('counts and logs a secret no key opens, by ticket id only, and leaves it', async () => {
      const { tickets } = await open();
      const stranger = randomBytes(32);
      const value = randomBytes(32).toString('base64');
      const sealed = crypto(stranger).encryptSecret(value);
      await tickets.insertIfAbsent(aTicket('t-lost', { secret: sealed }));
      const { lines, log } = recordingLog();
      const outcome = await new TicketSecretReseal({
        tickets,
        crypto: crypto(randomBytes(32), randomBytes(32)),
        log,
      }).run();
      expect(outcome).toEqual({ resealed: 0, alreadyCurrent: 0, failed: 1 });
      expect((await tickets.get('t-lost'))!.secret).toEqual(sealed);
      expect(lines.join('\n')).toContain('t-lost');
      expect(lines.join('\n')).not.toContain(value);
      expect(lines.join('\n')).not.toContain(sealed.data);
    });

    it('loses no concurrent write: a lost compare-and-set reads again', async () => {
      const { tickets } = await open();
      const [old, next] = [randomBytes(32), randomBytes(32)];
      await tickets.insertIfAbsent(
        aTicket('t-busy', { secret: crypto(old).encryptSecret('s3cr3t') }),
      );
      let raced = false;
      const racing: TicketRepository = {
        ...tickets,
        async update(ticket, voided) {
          if (!raced) {
            raced = true;
            // Another writer (a void) lands between the job's read and its write.
            const current = (await tickets.get(ticket.id))!;
            await tickets.update({ ...current, status: 'voided', voidReason: 'RESOLD' });
          }
          return tickets.update(ticket, voided);
        },
      };
      const outcome = await new TicketSecretReseal({
        tickets: racing,
        crypto: crypto(next, old),
        log: recordingLog().log,
      }).run();
      expect(outcome).toEqual({ resealed: 1, alreadyCurrent: 0, failed: 0 });
      const stored = (await tickets.get('t-busy'))!;
      expect(stored.status).toBe('voided');
      expect(stored.secret.kid).toBe(secretBoxKeyId(next));
      expect(crypto(next).decryptSecret(stored.secret)).toBe('s3cr3t');
    });
  });
}
