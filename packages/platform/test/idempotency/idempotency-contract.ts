/**
 * The idempotency contract, run on the memory store (unit) and the Mongo store (integration).
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createIdempotency,
  IDEMPOTENCY_KEY_IN_PROGRESS,
  IDEMPOTENCY_KEY_REUSED,
  idempotencySecrets,
  type IdempotencyRecord,
} from '../../src/idempotency/index.js';
import { AppError } from '../../src/errors/index.js';
import { runInIncomingCall } from '../../src/grpc/call-context.js';
import { waitFor } from '../../src/testing/wait-for.js';
import type { VersionedStore } from '../../src/store/types.js';

export type RecordStoreFactory = () => Promise<VersionedStore<IdempotencyRecord>>;

const text = new TextEncoder();
const call = (key: string, request: string, scope = 'app-1') => ({
  scope,
  key,
  request: text.encode(request),
  encode: (r: { n: number }) => text.encode(JSON.stringify(r)),
  decode: (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b)) as { n: number },
});

export function idempotencyContract(adapter: string, factory: RecordStoreFactory): void {
  describe(`idempotency (${adapter})`, () => {
    let store: VersionedStore<IdempotencyRecord>;
    let clock: Date;
    let runs: number;
    const sut = () =>
      createIdempotency(store, { now: () => clock, waitMs: 2_000, pollMs: 5, leaseMs: 1_000 });
    const work = async () => ({ n: ++runs });

    beforeEach(async () => {
      store = await factory();
      clock = new Date('2030-01-01T00:00:00Z');
      runs = 0;
    });

    it('runs once and answers the first response to a retry of the same request', async () => {
      const idem = sut();
      expect(await idem.run(call('k1', 'reserve:A'), work)).toEqual({ n: 1 });
      expect(await idem.run(call('k1', 'reserve:A'), work)).toEqual({ n: 1 });
      expect(runs).toBe(1);
    });

    it('refuses the same key with a different request (idempotency-key-reused)', async () => {
      const idem = sut();
      await idem.run(call('k2', 'reserve:A'), work);
      await expect(idem.run(call('k2', 'reserve:B'), work)).rejects.toMatchObject({
        kind: 'failed_precondition',
        details: { reason: IDEMPOTENCY_KEY_REUSED },
      });
      expect(runs).toBe(1);
    });

    it('keeps keys of different scopes apart and runs calls without a key every time', async () => {
      const idem = sut();
      await idem.run(call('k3', 'reserve:A', 'app-1'), work);
      expect(await idem.run(call('k3', 'reserve:B', 'app-2'), work)).toEqual({ n: 2 });
      await idem.run(call('', 'reserve:A'), work);
      await idem.run(call('', 'reserve:A'), work);
      expect(runs).toBe(4);
    });

    it('answers a recorded error again, and runs again after a transient one', async () => {
      const idem = sut();
      const soldOut = () => {
        runs += 1;
        return Promise.reject(
          new AppError('resource_exhausted', 'sold out', { details: { reason: '20052' } }),
        );
      };
      await expect(idem.run(call('k4', 'r'), soldOut)).rejects.toMatchObject({
        kind: 'resource_exhausted',
      });
      await expect(idem.run(call('k4', 'r'), work)).rejects.toMatchObject({
        kind: 'resource_exhausted',
        message: 'sold out',
        details: { reason: '20052' },
      });
      expect(runs).toBe(1);
      const down = () => {
        runs += 1;
        return Promise.reject(new AppError('unavailable', 'partner down'));
      };
      await expect(idem.run(call('k5', 'r'), down)).rejects.toMatchObject({ kind: 'unavailable' });
      // The key stays bound to its request: another request with it is still refused.
      await expect(idem.run(call('k5', 'other'), work)).rejects.toMatchObject({
        kind: 'failed_precondition',
      });
      expect(await idem.run(call('k5', 'r'), work)).toEqual({ n: 3 });
    });

    it('lets concurrent duplicates wait for the first outcome instead of running twice', async () => {
      const idem = sut();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow = async () => {
        await gate;
        return work();
      };
      const first = idem.run(call('k6', 'r'), slow);
      const second = idem.run(call('k6', 'r'), slow);
      setTimeout(release, 30);
      expect(await Promise.all([first, second])).toEqual([{ n: 1 }, { n: 1 }]);
      expect(runs).toBe(1);
    });

    it('stops waiting for a duplicate in time to answer before its own caller gives up', async () => {
      // A long wait allowed, but the gRPC call being served ends in 300 ms.
      const idem = createIdempotency(store, { now: () => clock, waitMs: 60_000, pollMs: 5 });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const first = idem.run(call('k9', 'r'), async () => {
        started();
        await gate;
        return work();
      });
      await running; // the first request holds the key
      const duplicate = runInIncomingCall(
        { deadline: Date.now() + 300, cancelled: () => false },
        () => idem.run(call('k9', 'r'), work),
      );
      // Answered "still running" while the first request is still held at its gate.
      await expect(duplicate).rejects.toMatchObject({
        kind: 'aborted',
        details: { reason: IDEMPOTENCY_KEY_IN_PROGRESS },
      });
      release();
      expect(await first).toEqual({ n: 1 });
      expect(runs).toBe(1);
    });

    it('treats a key as new after its time to live, and purges expired records', async () => {
      const idem = sut();
      await idem.run(call('k7', 'r'), work);
      clock = new Date(clock.getTime() + 25 * 60 * 60_000);
      expect(await idem.run(call('k7', 'other'), work)).toEqual({ n: 2 });
      clock = new Date(clock.getTime() + 25 * 60 * 60_000);
      expect(await idem.purgeExpired()).toBe(1);
      expect(await store.count()).toBe(0);
    });

    it('takes over a key whose first request died (lease ended)', async () => {
      const idem = sut();
      const never = new Promise<{ n: number }>(() => undefined);
      void idem.run(call('k8', 'r'), () => never);
      // The first request holds the key (its lease written) before its lease is made to end.
      await waitFor(async () => (await store.count()) === 1, { description: 'the first lease' });
      clock = new Date(clock.getTime() + 2_000);
      expect(await idem.run(call('k8', 'r'), work)).toEqual({ n: 1 });
    });

    it('refuses keys that are too long or not printable', async () => {
      await expect(sut().run(call('x'.repeat(256), 'r'), work)).rejects.toMatchObject({
        kind: 'invalid_argument',
      });
      await expect(sut().run(call('caf\u00e9', 'r'), work)).rejects.toMatchObject({
        kind: 'invalid_argument',
      });
    });

    describe('with secrets (sealed responses, keyed request digests)', () => {
      const oldKey = randomBytes(32);
      const newKey = randomBytes(32);
      const secretWork = async () => ({ n: ++runs, token: 'tok-3f9a1c-secret' });
      const sealed = (keys: Buffer[]) =>
        createIdempotency(store, {
          now: () => clock,
          waitMs: 2_000,
          pollMs: 5,
          leaseMs: 1_000,
          secrets: idempotencySecrets(keys),
        });
      const secretCall = (key: string, request: string) => ({
        ...call(key, request),
        encode: (r: { n: number; token: string }) => text.encode(JSON.stringify(r)),
        decode: (b: Uint8Array) =>
          JSON.parse(new TextDecoder().decode(b)) as { n: number; token: string },
      });

      it('keeps neither the response nor a bare hash of the request, and still replays', async () => {
        const idem = sealed([newKey]);
        const first = await idem.run(secretCall('s1', 'commit:A'), secretWork);
        expect(await idem.run(secretCall('s1', 'commit:A'), secretWork)).toEqual(first);
        expect(runs).toBe(1);
        const [record] = await store.find({});
        const raw = Buffer.from(JSON.stringify(record));
        expect(raw.includes('tok-3f9a1c-secret')).toBe(false);
        expect(record!.outcome).toMatchObject({ ok: true });
        expect(record!.outcome).not.toHaveProperty('response');
        expect(record!.requestHash).toMatch(/^hmac:[0-9a-f]{12}:[0-9a-f]{64}$/);
        await expect(idem.run(secretCall('s1', 'commit:B'), secretWork)).rejects.toMatchObject({
          details: { reason: IDEMPOTENCY_KEY_REUSED },
        });
      });

      it('answers records of an older key of the ring; a key out of the ring is a new key', async () => {
        const first = await sealed([oldKey]).run(secretCall('s2', 'commit:A'), secretWork);
        expect(
          await sealed([newKey, oldKey]).run(secretCall('s2', 'commit:A'), secretWork),
        ).toEqual(first);
        expect(runs).toBe(1);
        // Nothing can be read under the retired key: the call runs again (it is safe to repeat).
        expect(await sealed([newKey]).run(secretCall('s2', 'commit:A'), secretWork)).toEqual({
          n: 2,
          token: 'tok-3f9a1c-secret',
        });
      });
    });
  });
}
