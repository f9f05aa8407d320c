import { describe, expect, it } from 'vitest';
import { createAdmissionSigner } from '../../src/waiting-room/adapters/admission-signer.js';
import {
  adjustWindow,
  admissionsDue,
  DEFAULT_CONTROL,
} from '../../src/waiting-room/domain/admission.js';
import { queueIdentityOf } from '../../src/waiting-room/domain/identity.js';
import {
  earlyOrderKey,
  earlyRanks,
  lateOrderKey,
  viewOf,
  MAX_WAIT_ESTIMATE_SECONDS,
  waitingMayEnd,
  type OnSale,
  type QueueTicket,
} from '../../src/waiting-room/domain/queue.js';
import { checkAdmission } from '../../src/waiting-room/domain/token.js';

const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms);

describe('queue identity', () => {
  it('is the fan when named, else the device; one of them is required and checked', () => {
    expect(queueIdentityOf({ fanId: 'f-1', deviceId: 'd-1' })).toBe('fan:f-1');
    expect(queueIdentityOf({ deviceId: 'd-1' })).toBe('device:d-1');
    expect(() => queueIdentityOf({})).toThrow(/fan_id or a device_id/);
    expect(() => queueIdentityOf({ fanId: 'has space' })).toThrow(/fan_id must be/);
    expect(() => queueIdentityOf({ deviceId: 'x'.repeat(129) })).toThrow(/device_id must be/);
  });
});

describe('admission order', () => {
  it('puts every early joiner, by lottery, before every late joiner, by arrival', () => {
    const keys = [lateOrderKey(2), earlyOrderKey(900, 'b'), lateOrderKey(1), earlyOrderKey(5, 'a')];
    expect([...keys].sort()).toEqual([
      earlyOrderKey(5, 'a'),
      earlyOrderKey(900, 'b'),
      lateOrderKey(1),
      lateOrderKey(2),
    ]);
    // Sequence 16 sorts after 9 (fixed-width hex, not decimal text).
    expect(lateOrderKey(16) > lateOrderKey(9)).toBe(true);
    expect(
      earlyRanks([earlyOrderKey(7, 'x'), earlyOrderKey(3, 'y')]).get(earlyOrderKey(3, 'y')),
    ).toBe(1);
  });
});

/** An on-sale past its opening, and a fan waiting in it. */
const waitingOnSale: OnSale = {
  eventId: 'E1',
  opensAt: at(60_000),
  queue: true,
  frozenAt: at(62_000),
  earlyCount: 100,
  admittedThrough: 40,
  admissionsPerSecond: 10,
  updatedAt: at(0),
};
const waitingTicket: QueueTicket = {
  id: 'q1',
  eventId: 'E1',
  appId: 'app',
  identity: 'fan:f',
  joinedAt: at(0),
  early: true,
  orderKey: earlyOrderKey(1, 'q1'),
  state: 'WAITING',
  seenAt: at(0),
};
const context = { now: at(70_000), admissionTtlMs: 120_000 };

describe('what a fan is told', () => {
  const onSale = waitingOnSale;
  const ticket = waitingTicket;

  it('WAITING with the position behind those admitted and a wait at the current rate', () => {
    expect(viewOf(ticket, onSale, { ...context, rank: 90 })).toEqual({
      status: 'WAITING',
      position: 50,
      opensAt: onSale.opensAt,
      estimatedWaitSeconds: 5,
    });
    // Before the freeze: no position yet.
    expect(
      viewOf(ticket, { ...onSale, frozenAt: undefined }, { ...context, rank: undefined }),
    ).toEqual({
      status: 'WAITING',
      opensAt: onSale.opensAt,
    });
  });

  it('states at most the longest wait its 32-bit field holds, however slow the rate', () => {
    for (const admissionsPerSecond of [1e-300, Number.MIN_VALUE])
      expect(viewOf(ticket, { ...onSale, admissionsPerSecond }, { ...context, rank: 90 })).toEqual({
        status: 'WAITING',
        position: 50,
        opensAt: onSale.opensAt,
        estimatedWaitSeconds: MAX_WAIT_ESTIMATE_SECONDS,
      });
    expect(MAX_WAIT_ESTIMATE_SECONDS).toBe(2_147_483_647);
  });

  it('ADMITTED until the admission expires, SOLD_OUT after a sell-out, EXPIRED once spent', () => {
    const admitted = { ...ticket, state: 'ADMITTED' as const, admittedAt: at(69_000) };
    expect(viewOf(admitted, onSale, { ...context, rank: 10 })).toEqual({
      status: 'ADMITTED',
      admittedAt: at(69_000),
      expiresAt: at(189_000),
    });
    expect(viewOf(admitted, onSale, { ...context, now: at(189_000), rank: 10 }).status).toBe(
      'EXPIRED',
    );
    expect(
      viewOf(ticket, { ...onSale, soldOutAt: at(65_000) }, { ...context, rank: 90 }).status,
    ).toBe('SOLD_OUT');
    expect(viewOf({ ...ticket, state: 'USED' }, onSale, { ...context, rank: 10 }).status).toBe(
      'EXPIRED',
    );
  });
});

describe("a fan held back by its app's quota", () => {
  const onSale: OnSale = { ...waitingOnSale, heldBackThrough: { app: 12 } };
  const ticket: QueueTicket = { ...waitingTicket, heldBack: true };

  it("reads WAITING, its position counted from its app's last admitted fan, no estimate", () => {
    expect(viewOf(ticket, onSale, { ...context, rank: 20 })).toEqual({
      status: 'WAITING',
      position: 8,
      opensAt: onSale.opensAt,
      heldBack: true,
    });
    // Never zero or below, even when its app's admissions passed it (one written meanwhile).
    expect(viewOf(ticket, onSale, { ...context, rank: 9 })).toMatchObject({ position: 1 });
    const fresh = { ...onSale, heldBackThrough: {} };
    expect(viewOf(ticket, fresh, { ...context, rank: 20 })).toMatchObject({ position: 20 });
    expect(viewOf(ticket, { ...onSale, soldOutAt: at(65_000) }, { ...context, rank: 20 })).toEqual({
      status: 'SOLD_OUT',
    });
  });

  it("is woken by its app's admissions reaching it, not by the queue's", () => {
    // Ranked below `admittedThrough` (the queue moved past it): its wait does not end for that.
    expect(waitingMayEnd(onSale, 20)).toBe(true);
    expect(waitingMayEnd(onSale, 20, 'app')).toBe(false);
    expect(waitingMayEnd({ ...onSale, heldBackThrough: { app: 20 } }, 20, 'app')).toBe(true);
    expect(waitingMayEnd({ ...onSale, heldBackThrough: { other: 30 } }, 20, 'app')).toBe(false);
    expect(waitingMayEnd({ ...onSale, soldOutAt: at(1) }, 20, 'app')).toBe(true);
    expect(waitingMayEnd({ ...onSale, queue: false }, 20, 'app')).toBe(true);
  });
});

describe('admission window', () => {
  const healthy = { reserves: 20, overloaded: 0, p95LatencyMs: 120 };

  it('grows while it is used on a healthy path, shrinks on overload or slowness, within bounds', () => {
    expect(adjustWindow(DEFAULT_CONTROL, healthy, 15).window).toBe(22);
    // Fans who reserve at once leave little in flight, yet their reserves fill the window.
    expect(adjustWindow(DEFAULT_CONTROL, healthy, 2).window).toBe(22);
    expect(adjustWindow(DEFAULT_CONTROL, { ...healthy, reserves: 4 }, 2).window).toBe(20);
    expect(adjustWindow(DEFAULT_CONTROL, { ...healthy, overloaded: 1 }, 15).window).toBe(14);
    expect(adjustWindow(DEFAULT_CONTROL, { ...healthy, p95LatencyMs: 900 }, 15).window).toBe(14);
    expect(
      adjustWindow({ ...DEFAULT_CONTROL, window: 5 }, { ...healthy, overloaded: 3 }, 5).window,
    ).toBe(5);
    expect(adjustWindow({ ...DEFAULT_CONTROL, window: 2_000 }, healthy, 2_000).window).toBe(2_000);
  });

  it('admits the room left in the window, none once sold out', () => {
    expect(admissionsDue(DEFAULT_CONTROL, 15, false)).toBe(5);
    expect(admissionsDue(DEFAULT_CONTROL, 25, false)).toBe(0);
    expect(admissionsDue(DEFAULT_CONTROL, 0, true)).toBe(0);
  });
});

describe('admission tokens', () => {
  const signer = createAdmissionSigner(Buffer.alloc(32, 7));
  const claims = {
    ticketId: 'q1',
    eventId: 'E1',
    appId: 'app',
    identity: 'fan:f',
    expiresAtMs: at(1_000).getTime(),
  };
  const use = { eventId: 'E1', appId: 'app', identity: 'fan:f', now: at(0) };

  it('verifies what it signed and nothing else', () => {
    const token = signer.sign(claims);
    expect(signer.verify(token)).toEqual(claims);
    const [payload, signature] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ t: 'q1', e: 'E1', a: 'other', i: 'fan:f', x: 9e15 }),
    ).toString('base64url');
    expect(signer.verify(`${forged}.${signature}`)).toBeUndefined();
    expect(signer.verify(`${payload}.${signature}x`)).toBeUndefined();
    expect(createAdmissionSigner(Buffer.alloc(32, 8)).verify(token)).toBeUndefined();
    expect(signer.verify('garbage')).toBeUndefined();
    expect(() => createAdmissionSigner(Buffer.alloc(16))).toThrow(/32 bytes/);
  });

  it('admits only the event, app and fan it was given to, until it expires', () => {
    expect(checkAdmission(claims, use)).toEqual(claims);
    const refusal = (c: typeof claims | undefined, u = use) => {
      try {
        checkAdmission(c, u);
      } catch (error) {
        return error as { kind: string; message: string; details: Record<string, unknown> };
      }
      return undefined;
    };
    expect(refusal(undefined)).toMatchObject({
      kind: 'permission_denied',
      details: { reason: '20070' },
    });
    expect(refusal(claims, { ...use, eventId: 'E2' })?.message).toMatch(/another event/);
    expect(refusal(claims, { ...use, appId: 'x' })?.message).toMatch(/another app/);
    expect(refusal(claims, { ...use, identity: 'fan:g' })?.message).toMatch(/another fan/);
    expect(refusal(claims, { ...use, now: at(1_000) })?.message).toMatch(/expired/);
  });
});
