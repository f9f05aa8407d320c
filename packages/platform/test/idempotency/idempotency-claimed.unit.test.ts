/**
 * `runClaimed`: the key claimed by the call's own write. The "own write" here is a map of
 * documents by an id derived from the claim, refusing a taken id as the stores do.
 */
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  createIdempotency,
  idempotencyIndexes,
  idempotencySecrets,
  IDEMPOTENCY_KEY_REUSED,
  type IdempotencyRecord,
  type KeyClaim,
} from '../../src/idempotency/index.js';
import { AppError } from '../../src/errors/index.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

const text = new TextEncoder();
const call = (key: string, request: string) => ({
  scope: 'app-1',
  key,
  request: text.encode(request),
});

/** What the call writes: its state and the digest of the request that made it. */
interface Made {
  n: number;
  requestHash: string;
  /** Ended in a failure that says nothing about the request. */
  failed?: boolean;
}

describe('idempotency: a key claimed by the call’s own write', () => {
  let records: ReturnType<typeof createMemoryStore<IdempotencyRecord>>;
  let written: Map<string, Made>;
  let runs: KeyClaim[];
  let finds: number;
  const idempotency = () =>
    createIdempotency(records, { secrets: idempotencySecrets([Buffer.alloc(32, 7)]) });
  /** The call: writes its document under the claim's id, refused when the id is taken. */
  const execute = (outcome: Partial<Made> = {}) =>
    async function (claim: KeyClaim | undefined): Promise<{ n: number }> {
      const n = runs.push(claim ?? { id: '', requestHash: '', attempt: 0 });
      if (!claim) return { n };
      if (written.has(claim.id)) throw new AppError('already_exists', 'taken');
      written.set(claim.id, { n, requestHash: claim.requestHash, ...outcome });
      if (outcome.failed) throw new AppError('unavailable', 'the partner did not answer');
      return { n };
    };
  const find = async (claim: KeyClaim) => {
    finds += 1;
    const made = written.get(claim.id);
    return (
      made && {
        requestHash: made.requestHash,
        runAgain: made.failed === true,
        answer: () => {
          if (made.failed) throw new AppError('unavailable', 'the partner did not answer');
          return { n: made.n };
        },
      }
    );
  };

  beforeEach(() => {
    records = createMemoryStore<IdempotencyRecord>({
      name: 'idempotency',
      indexes: idempotencyIndexes,
    });
    written = new Map();
    runs = [];
    finds = 0;
  });

  it('runs a new key without a read or a record, claimed by the digest of scope and key', async () => {
    expect(await idempotency().runClaimed(call('k1', 'req'), execute(), { find })).toEqual({
      n: 1,
    });
    expect(finds).toBe(0);
    expect(await records.count()).toBe(0);
    expect(runs[0]).toMatchObject({
      id: createHash('sha256').update('app-1\u0000k1').digest('hex'),
      attempt: 1,
    });
    expect(runs[0]!.requestHash).toMatch(/^hmac:/);
  });

  it('answers a retry from what the first run wrote, and refuses the key for another request', async () => {
    const sut = idempotency();
    await sut.runClaimed(call('k1', 'req'), execute(), { find });
    written.get(runs[0]!.id)!.n = 41; // the state moved on since the first answer
    expect(await sut.runClaimed(call('k1', 'req'), execute(), { find })).toEqual({ n: 41 });
    await expect(sut.runClaimed(call('k1', 'other'), execute(), { find })).rejects.toMatchObject({
      kind: 'failed_precondition',
      details: { reason: IDEMPOTENCY_KEY_REUSED },
    });
    expect(written.size).toBe(1);
  });

  it('runs again, under the next claim, after a run that failed with nothing to record', async () => {
    const sut = idempotency();
    await expect(
      sut.runClaimed(call('k1', 'req'), execute({ failed: true }), { find }),
    ).rejects.toMatchObject({ kind: 'unavailable' });
    expect(await sut.runClaimed(call('k1', 'req'), execute(), { find })).toEqual({ n: 3 });
    const [first, , second] = runs;
    expect(second).toMatchObject({ attempt: 2, requestHash: first!.requestHash });
    expect(second!.id).not.toBe(first!.id);
    // The retry of the retry is answered by the second run.
    expect(await sut.runClaimed(call('k1', 'req'), execute(), { find })).toEqual({ n: 3 });
    expect(written.size).toBe(2);
  });

  it('reads first with refuseNew or readFirst: a seen key is answered, a new one refused', async () => {
    const sut = idempotency();
    await sut.runClaimed(call('k1', 'req'), execute(), { find });
    const refuse = () => {
      throw new AppError('resource_exhausted', 'sold out');
    };
    expect(await sut.runClaimed(call('k1', 'req'), execute(), { find, refuseNew: refuse })).toEqual(
      { n: 1 },
    );
    await expect(
      sut.runClaimed(call('k2', 'req'), execute(), { find, refuseNew: refuse }),
    ).rejects.toMatchObject({ kind: 'resource_exhausted' });
    expect(await sut.runClaimed(call('k1', 'req'), execute(), { find, readFirst: true })).toEqual({
      n: 1,
    });
    expect(runs).toHaveLength(1);
  });

  it('rethrows an id clash it cannot answer, and runs a call without a key as it is', async () => {
    const sut = idempotency();
    const clash = async () => {
      throw new AppError('already_exists', 'something else');
    };
    await expect(sut.runClaimed(call('k1', 'req'), clash, { find })).rejects.toMatchObject({
      kind: 'already_exists',
    });
    expect(await sut.runClaimed(call('', 'req'), execute(), { find })).toEqual({ n: 1 });
    expect(runs[0]!.attempt).toBe(0);
  });
});
