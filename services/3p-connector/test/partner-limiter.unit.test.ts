import { describe, expect, it } from 'vitest';
import { PARTNER_BUSY, PartnerLimiter, limitedPartnerApis } from '../src/app/partner-limiter.js';
import type { PartnerApi, PartnerApiFactory } from '../src/app/ports.js';
import type { Partner } from '../src/domain/partner.js';

/** A call that ends when `finish` is called; records when it started. */
function gate() {
  let finish!: (value: string) => void;
  const done = new Promise<string>((resolve) => (finish = resolve));
  return { done, finish };
}

const refusedBusy = {
  kind: 'unavailable',
  details: { reason: PARTNER_BUSY, retryAfterMs: expect.any(Number) },
};

describe('PartnerLimiter', () => {
  it('runs up to maxConcurrent at once; the rest wait and start in arrival order', async () => {
    const limiter = new PartnerLimiter({ maxConcurrent: 2, queueMax: 10, maxWaitMs: 5_000 });
    const started: number[] = [];
    const gates = Array.from({ length: 5 }, () => gate());
    const calls = gates.map((g, i) =>
      limiter.run(undefined, () => {
        started.push(i);
        return g.done;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.load).toEqual({ active: 2, queued: 3 });
    gates[1]!.finish('b');
    await expect(calls[1]).resolves.toBe('b');
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.finish('a');
    gates[2]!.finish('c');
    await Promise.all([calls[0], calls[2]]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    gates[3]!.finish('d');
    gates[4]!.finish('e');
    await expect(Promise.all(calls)).resolves.toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(limiter.load).toEqual({ active: 0, queued: 0 });
  });

  it('refuses at once, partner-busy, a call that finds the queue full; a failed call frees its place', async () => {
    const limiter = new PartnerLimiter({ maxConcurrent: 1, queueMax: 1, maxWaitMs: 5_000 });
    const first = gate();
    const running = limiter.run(undefined, () => first.done);
    const queued = limiter.run(undefined, () => Promise.reject(new Error('partner said no')));
    let refusedCallRan = false;
    await expect(
      limiter.run(undefined, async () => {
        refusedCallRan = true;
      }),
    ).rejects.toMatchObject(refusedBusy);
    expect(refusedCallRan).toBe(false);
    first.finish('ok');
    await expect(running).resolves.toBe('ok');
    await expect(queued).rejects.toThrow('partner said no');
    await expect(limiter.run(undefined, async () => 'next')).resolves.toBe('next');
  });

  it('takes a call out of the queue at its deadline, and gives the call the deadline left', async () => {
    const limiter = new PartnerLimiter({ maxConcurrent: 1, queueMax: 5, maxWaitMs: 5_000 });
    const first = gate();
    const running = limiter.run(undefined, () => first.done);
    const late = limiter.run(30, async () => 'never');
    const patient = limiter.run(2_000, async (left) => left);
    await expect(late).rejects.toMatchObject(refusedBusy);
    expect(limiter.load).toEqual({ active: 1, queued: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    first.finish('done');
    await running;
    const left = await patient;
    expect(left).toBeLessThanOrEqual(1_950);
    expect(left).toBeGreaterThan(1_000);
  });

  it('bounds the wait of a call without a deadline by maxWaitMs', async () => {
    const limiter = new PartnerLimiter({ maxConcurrent: 1, queueMax: 5, maxWaitMs: 20 });
    const first = gate();
    const running = limiter.run(undefined, () => first.done);
    await expect(limiter.run(undefined, async () => 'x')).rejects.toMatchObject(refusedBusy);
    first.finish('y');
    await running;
  });
});

describe('limitedPartnerApis', () => {
  const partner = (id: string, clientId = 'c') => ({ id, clientId }) as Partner;

  it('one limiter per partner, kept across clients made anew; healthchecks are not queued', async () => {
    const pending: Array<() => void> = [];
    let made = 0;
    const inner: PartnerApiFactory = {
      forPartner: () => {
        made += 1;
        return {
          createBooking: () => new Promise((resolve) => pending.push(() => resolve({} as never))),
          healthcheck: async () => ({}) as never,
        } as unknown as PartnerApi;
      },
    };
    const apis = limitedPartnerApis(inner, () => ({
      maxConcurrent: 1,
      queueMax: 0,
      maxWaitMs: 1_000,
    }));
    const a = apis.forPartner(partner('P1'));
    const booking = a.createBooking({} as never, { deadlineMs: 1_000 });
    // A second client of P1 (say after a credential change) shares P1's limiter.
    const again = apis.forPartner(partner('P1', 'rotated'));
    await expect(again.createBooking({} as never)).rejects.toMatchObject(refusedBusy);
    await expect(again.healthcheck()).resolves.toEqual({});
    // Another partner has its own.
    const b = apis.forPartner(partner('P2'));
    const other = b.createBooking({} as never);
    expect(apis.limiterOf('P1')?.load).toEqual({ active: 1, queued: 0 });
    expect(apis.limiterOf('P2')?.load).toEqual({ active: 1, queued: 0 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(pending).toHaveLength(2);
    pending.forEach((resolve) => resolve());
    await Promise.all([booking, other]);
    expect(made).toBe(3);
  });
});
