import { afterEach, describe, expect, it } from 'vitest';
import type { CartCaller, PartnerCart, ReserveInput } from '../src/app/partner-cart.js';
import type { QueueTicketRecord, WaitingRoomBackend } from '../src/app/waiting-room.js';
import {
  ADMIN_TOKEN,
  EVENT,
  KEY,
  QUOTA_KEY,
  answer,
  heldCart,
  partnerEdge,
  partnerFailure,
  type EdgeHarness,
} from './partner-cart-fixtures.js';

// The waiting room through the edge: the operators' on-sale route, the partner apps' queue
// routes (join, follow, long poll), and reserves carrying an admission or refused 403 (20070).

let harness: EdgeHarness | undefined;
afterEach(async () => {
  await harness?.app.close();
  harness = undefined;
});

const P = '/partners/v1';
const JOINED = new Date('2030-06-01T09:59:00Z');
const OPENS = new Date('2030-06-01T10:00:00Z');

const waiting = (extra: Partial<QueueTicketRecord> = {}): QueueTicketRecord => ({
  id: 'q_abcdefghijklmnop',
  eventId: EVENT,
  status: 'WAITING',
  opensAt: OPENS,
  joinedAt: JOINED,
  ...extra,
});

describe('waiting room: partner routes', () => {
  it('joins a fan (201, then 200 for the same identity) with the ticket and its URL', async () => {
    const calls: Array<{ caller: CartCaller; eventId: string; identity: unknown }> = [];
    let joins = 0;
    harness = await partnerEdge(
      {},
      {
        waitingRoom: {
          join: async (caller, eventId, identity) => {
            calls.push({ caller, eventId, identity });
            joins += 1;
            return { ticket: waiting({ position: 3 }), joined: joins === 1 };
          },
        },
      },
    );
    const join = () =>
      harness!.app.inject({
        method: 'POST',
        url: `${P}/events/${EVENT}/queue?apikey=${KEY}`,
        payload: { fan_id: 'fan-42' },
      });
    const first = await join();
    expect(first.statusCode).toBe(201);
    expect(first.headers.location).toBe(`${P}/events/${EVENT}/queue/q_abcdefghijklmnop`);
    expect(first.json()).toEqual({
      id: 'q_abcdefghijklmnop',
      event_id: EVENT,
      status: 'WAITING',
      position: 3,
      opens_at: OPENS.toISOString(),
      joined_at: JOINED.toISOString(),
      poll_after_seconds: 2,
    });
    expect((await join()).statusCode).toBe(200);
    expect(calls[0]).toMatchObject({ eventId: EVENT, identity: { fanId: 'fan-42' } });
    expect(calls[0]!.caller.sandbox).toBe(false);
  });

  it("joins with the app's held-ticket quota, and answers a held-back fan as such", async () => {
    const callers: CartCaller[] = [];
    harness = await partnerEdge(
      {},
      {
        waitingRoom: {
          join: async (caller) => {
            callers.push(caller);
            return {
              ticket: waiting({ position: 2, rank: 9, heldBack: true }),
              joined: true,
            };
          },
        },
      },
    );
    const joined = await harness.app.inject({
      method: 'POST',
      url: `${P}/events/${EVENT}/queue?apikey=${QUOTA_KEY}`,
      payload: { device_id: 'device-7' },
    });
    expect(joined.statusCode).toBe(201);
    expect(joined.json()).toEqual({
      id: 'q_abcdefghijklmnop',
      event_id: EVENT,
      status: 'WAITING',
      position: 2,
      opens_at: OPENS.toISOString(),
      joined_at: JOINED.toISOString(),
      held_back: true,
      poll_after_seconds: 2,
    });
    expect(callers[0]).toMatchObject({ appId: 'app-5', heldTicketsPerEvent: 7 });
  });

  it('refuses a join without a key (401) and a malformed identity (400 code 10002)', async () => {
    harness = await partnerEdge({}, { waitingRoom: {} });
    const noKey = await harness.app.inject({
      method: 'POST',
      url: `${P}/events/${EVENT}/queue`,
      payload: { fan_id: 'fan-42' },
    });
    expect(noKey.statusCode).toBe(401);
    const bad = await harness.app.inject({
      method: 'POST',
      url: `${P}/events/${EVENT}/queue?apikey=${KEY}`,
      payload: { fan_id: 'has spaces' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('10002');
  });

  it('answers 404 code 90003 for an event without a queue', async () => {
    harness = await partnerEdge(
      {},
      {
        waitingRoom: {
          join: () => Promise.reject(partnerFailure('not_found', '90003', 'no waiting room')),
        },
      },
    );
    const res = await harness.app.inject({
      method: 'POST',
      url: `${P}/events/${EVENT}/queue?apikey=${KEY}`,
      payload: { device_id: 'dev-1' },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('90003');
  });

  it('follows a ticket: ADMITTED carries the admission token and its expiry', async () => {
    const expires = new Date('2030-06-01T10:02:00Z');
    harness = await partnerEdge(
      {},
      {
        waitingRoom: {
          readMany: async () => [
            waiting({ status: 'ADMITTED', admissionToken: 'tok.sig', admissionExpiresAt: expires }),
          ],
        },
      },
    );
    const res = await harness.app.inject({
      method: 'GET',
      url: `${P}/events/${EVENT}/queue/q_abcdefghijklmnop?apikey=${KEY}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'ADMITTED',
      admission_token: 'tok.sig',
      admission_expires_at: expires.toISOString(),
      poll_after_seconds: 0,
    });
  });

  it('answers 404 code 90003 for a ticket cart does not find for the app', async () => {
    harness = await partnerEdge(
      {},
      {
        waitingRoom: {
          // The batch leaves the ticket out; read alone, cart answers its not-found.
          readMany: async () => [],
          read: () => Promise.reject(partnerFailure('not_found', '90003', 'no such ticket')),
        },
      },
    );
    const res = await harness.app.inject({
      method: 'GET',
      url: `${P}/events/${EVENT}/queue/q_abcdefghijklmnop?apikey=${KEY}&wait=25`,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: '90003' });
  });

  it('refuses a wait longer than 25 s (400)', async () => {
    harness = await partnerEdge({}, { waitingRoom: {} });
    const res = await harness.app.inject({
      method: 'GET',
      url: `${P}/events/${EVENT}/queue/q_abcdefghijklmnop?apikey=${KEY}&wait=26`,
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('waiting room: long polling', () => {
  it('holds the long poll at the edge and answers once the fan’s rank is admitted', async () => {
    const reads: unknown[][] = [];
    let admittedThrough = 0;
    let onSaleCalls = 0;
    harness = await partnerEdge(
      {},
      {
        waitingRoom: {
          // Cart is never asked to hold a read: the port has no wait to pass.
          readMany: async (...args: unknown[]) => {
            reads.push(args);
            return [
              admittedThrough >= 7
                ? waiting({ status: 'ADMITTED', admissionToken: 'tok.sig' })
                : waiting({ position: 7 - admittedThrough, rank: 7 }),
            ];
          },
          onSale: async () => {
            onSaleCalls += 1;
            // The admitter reaches rank 7 by the second poll.
            if (onSaleCalls === 2) admittedThrough = 7;
            return {
              eventId: EVENT,
              opensAt: OPENS,
              queue: true,
              frozenAt: OPENS,
              earlyCount: 9,
              admittedThrough,
            };
          },
        },
      },
    );
    const follow = (query: string) =>
      harness!.app.inject({
        method: 'GET',
        url: `${P}/events/${EVENT}/queue/q_abcdefghijklmnop?apikey=${KEY}${query}`,
      });
    const now = (await follow('')).json();
    expect(now).toMatchObject({ status: 'WAITING', position: 7 });
    // The rank is the edge's, not the fan's: the body is the documented one.
    expect(now).not.toHaveProperty('rank');
    expect(onSaleCalls).toBe(0);
    const held = (await follow('&wait=25')).json();
    expect(held).toMatchObject({ status: 'ADMITTED', admission_token: 'tok.sig' });
    expect(onSaleCalls).toBe(2);
    // One read without a wait, then the long poll's two: before the wait and after the wake.
    expect(reads).toHaveLength(3);
    expect(reads.every((args) => args.length === 2)).toBe(true);
    expect(reads[0]).toEqual([
      EVENT,
      [{ appId: expect.any(String), ticketId: 'q_abcdefghijklmnop' }],
    ]);
  });

  it('answers a ticket that is not WAITING at once, without watching the on-sale', async () => {
    let onSaleCalls = 0;
    harness = await partnerEdge(
      {},
      {
        waitingRoom: {
          readMany: async () => [waiting({ status: 'SOLD_OUT' })],
          onSale: async () => {
            onSaleCalls += 1;
            throw new Error('not asked');
          },
        },
      },
    );
    const res = await harness.app.inject({
      method: 'GET',
      url: `${P}/events/${EVENT}/queue/q_abcdefghijklmnop?apikey=${KEY}&wait=25`,
    });
    expect(res.json().status).toBe('SOLD_OUT');
    expect(onSaleCalls).toBe(0);
  });
});

describe('waiting room: reserves and the operator route', () => {
  it('passes the admission headers to cart, and answers its refusal 403 code 20070', async () => {
    const inputs: ReserveInput[] = [];
    const cart: Partial<PartnerCart> = {
      reserveCart: async (_caller, input) => {
        inputs.push(input);
        if (!input.admission)
          throw partnerFailure('permission_denied', '20070', "the event's on-sale has a queue");
        return answer(heldCart());
      },
    };
    harness = await partnerEdge(cart);
    const reserve = (headers: Record<string, string>) =>
      harness!.app.inject({
        method: 'POST',
        url: `${P}/events/${EVENT}/cart?apikey=${KEY}`,
        headers,
        payload: { reserve: { tickets: [{ id: '000001', quantity: 1 }] } },
      });
    const refused = await reserve({});
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('20070');
    const held = await reserve({ 'x-admission-token': 'tok.sig', 'x-device-id': 'dev-1' });
    expect(held.statusCode).toBe(200);
    expect(inputs[1]!.admission).toEqual({ token: 'tok.sig', deviceId: 'dev-1' });
  });

  it('sets an on-sale through the admin API', async () => {
    const configured: Array<{ eventId: string; opensAt: Date; queue: boolean }> = [];
    const waitingRoom: Partial<WaitingRoomBackend> = {
      configure: async (eventId, input) => {
        configured.push({ eventId, ...input });
        return { eventId, ...input, earlyCount: 0, admittedThrough: 0 };
      },
    };
    harness = await partnerEdge({}, { waitingRoom });
    const put = (payload: unknown, token = ADMIN_TOKEN) =>
      harness!.app.inject({
        method: 'PUT',
        url: `/admin/v1/events/${EVENT}/onsale`,
        headers: { authorization: `Bearer ${token}` },
        payload: payload as object,
      });
    const res = await put({ opensAt: OPENS.toISOString(), queue: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      onSale: {
        eventId: EVENT,
        opensAt: OPENS.toISOString(),
        queue: true,
        earlyCount: 0,
        admittedThrough: 0,
      },
    });
    expect(configured).toEqual([{ eventId: EVENT, opensAt: OPENS, queue: true }]);
    expect((await put({ opensAt: 'tomorrow', queue: true })).statusCode).toBe(400);
    // A leap second is valid RFC 3339 but not a JavaScript Date: the next second's start.
    const leap = await put({ opensAt: '2026-12-31T23:59:60Z', queue: true });
    expect(leap.statusCode).toBe(200);
    expect(configured[1]!.opensAt.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect((await put({ opensAt: OPENS.toISOString(), queue: true }, 'wrong')).statusCode).toBe(
      401,
    );
    expect(configured).toHaveLength(2);
  });
});
