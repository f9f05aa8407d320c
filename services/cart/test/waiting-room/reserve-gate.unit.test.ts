import { QueueAdmitted, QueueOpened, ReserveCartRequest } from '@marquee/proto/cart/v1';
import { createServiceStores } from '@marquee/platform/store';
import { describe, expect, it } from 'vitest';
import { InMemorySoldOutBook } from '../../src/app/core/sold-out-book.js';
import { CartError, ErrorCode } from '../../src/domain/errors.js';
import { gatedReserve } from '../../src/ports/grpc/reserve-gate.js';
import { createReserveProbe } from '../../src/waiting-room/adapters/reserve-probe.js';
import { WaitingRoomGate } from '../../src/waiting-room/app/reserve-gate.js';
import { passThroughWatch } from './watch.js';
import {
  createAdmissionSigner,
  createWaitingRoom,
  createWaitingRoomStorage,
  DEFAULT_WAITING_ROOM_SETTINGS,
} from '../../src/waiting-room/index.js';
import { noQuota } from './holdings.js';

// Cart's reserve behind an event's waiting room: the gate spends admissions, refuses reserves
// without one (20070), gives an admission back when its reserve fails, feeds the probe and
// records a sell-out. Memory stores, a settable clock.

const OPENS = new Date(Date.UTC(2030, 5, 1, 10));
const EVENT = 'E1';
const APP = 'app-1';

function setup() {
  let now = OPENS.getTime() - 60_000;
  let next = 0;
  const stores = createServiceStores(undefined);
  const storage = createWaitingRoomStorage(stores);
  const probe = createReserveProbe();
  const clock = { now: () => new Date(now) };
  const room = createWaitingRoom(
    {
      ...storage,
      holdings: noQuota,
      signer: createAdmissionSigner(Buffer.alloc(32, 7)),
      probe,
      clock,
      ids: { queueTicketId: () => `q_ticket${(next += 1)}`, lottery: () => next * 1_000 },
      settings: DEFAULT_WAITING_ROOM_SETTINGS,
      // Reads here never wait (no `waitMs`): the watch is not asked.
      watch: passThroughWatch(storage.onSales),
    },
    'replica-a',
  );
  const warnings: string[] = [];
  // Cart's sold-out book, as its core marks it on the partner's sold-out answers.
  const book = new InMemorySoldOutBook(clock, 5_000);
  const gate = new WaitingRoomGate({
    spend: room.spend,
    soldOut: room.soldOut,
    watch: passThroughWatch(storage.onSales),
    book,
    recorder: probe,
    clock,
    log: { warn: (_fields, message) => warnings.push(message) },
  });
  const request = (extra: Partial<ReserveCartRequest> = {}) =>
    ReserveCartRequest.fromPartial({
      appId: APP,
      eventId: EVENT,
      reserves: [{ tickets: [{ id: 'ADULT', quantity: 1 }] }],
      ...extra,
    });
  /** Turns the queue on, joins `fans`, opens the sale and admits them; answers their tokens. */
  async function admitted(fans: string[]): Promise<Map<string, string>> {
    await room.configure.handle(EVENT, { opensAt: OPENS, queue: true });
    const tickets = new Map<string, string>();
    for (const fan of fans)
      tickets.set(
        fan,
        (await room.join.handle({ eventId: EVENT, appId: APP, fanId: fan })).ticket.id,
      );
    now = OPENS.getTime() + 5_000;
    expect((await room.admitter.handle(EVENT)).kind).toBe('frozen');
    expect((await room.admitter.handle(EVENT)).kind).toBe('admitted');
    const tokens = new Map<string, string>();
    for (const [fan, id] of tickets) {
      const answer = await room.read.handle(EVENT, id, APP);
      expect(answer.view.status).toBe('ADMITTED');
      tokens.set(fan, answer.admissionToken!);
    }
    return tokens;
  }
  /** The records waiting in the outbox of every collection, decoded. */
  async function published() {
    const records: Array<{ topic: string; key: string; value: Record<string, unknown> }> = [];
    for (const source of stores.outboxSources)
      for (const pending of await source.pendingOutbox(1_000))
        for (const event of pending.events) {
          const message = event.topic === 'queue-opened' ? QueueOpened : QueueAdmitted;
          records.push({
            topic: event.topic,
            key: event.key,
            value: message.decode(event.value!) as unknown as Record<string, unknown>,
          });
        }
    return records;
  }
  return {
    room,
    gate,
    book,
    probe,
    storage,
    request,
    admitted,
    published,
    warnings,
    advance: (ms: number) => (now += ms),
  };
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CartError);
  expect((error as CartError).kind).toBe('permission_denied');
  expect((error as CartError).code).toBe(ErrorCode.ADMISSION_REQUIRED);
  return (error as CartError).message;
};

describe('the records of the waiting room', () => {
  it('records queue-opened at the opening and queue-admitted per fan let through, never the fan', async () => {
    const { admitted, published } = setup();
    await admitted(['f1', 'f2']);
    const records = await published();
    const opened = records.filter((r) => r.topic === 'queue-opened');
    expect(opened).toEqual([
      {
        topic: 'queue-opened',
        key: EVENT,
        value: expect.objectContaining({ eventId: EVENT, earlyCount: 2, opensAt: OPENS }),
      },
    ]);
    const admissions = records.filter((r) => r.topic === 'queue-admitted');
    expect(admissions.map((r) => r.value.rank).sort()).toEqual([1, 2]);
    for (const record of admissions) {
      expect(record.key).toBe(EVENT);
      expect(record.value).toMatchObject({ eventId: EVENT, appId: APP, waitedMs: 5_000 });
      expect(JSON.stringify(record.value)).not.toMatch(/f1|f2/);
    }
  });
});

describe('the reserve gate of the waiting room', () => {
  it('lets every reserve through while the event has no queue', async () => {
    const { gate, request } = setup();
    let ran = 0;
    await gatedReserve(gate, request(), async () => (ran += 1));
    expect(ran).toBe(1);
  });

  it('refuses a reserve without an admission while the queue is on (20070)', async () => {
    const { gate, request, admitted } = setup();
    await admitted(['f1']);
    let ran = 0;
    const message = await refusal(gatedReserve(gate, request(), async () => (ran += 1)));
    expect(message).toMatch(/no valid admission token/);
    expect(ran).toBe(0);
  });

  it('spends an admission once, and only for its own fan', async () => {
    const { gate, request, admitted } = setup();
    const tokens = await admitted(['f1', 'f2']);
    let ran = 0;
    const reserve = async () => (ran += 1);
    expect(
      await refusal(
        gatedReserve(
          gate,
          request({ admissionToken: tokens.get('f1')!, queueFanId: 'f2' }),
          reserve,
        ),
      ),
    ).toMatch(/another fan or device/);
    await gatedReserve(
      gate,
      request({ admissionToken: tokens.get('f1')!, queueFanId: 'f1' }),
      reserve,
    );
    expect(ran).toBe(1);
    expect(
      await refusal(
        gatedReserve(
          gate,
          request({ admissionToken: tokens.get('f1')!, queueFanId: 'f1' }),
          reserve,
        ),
      ),
    ).toMatch(/spent/);
    expect(
      await refusal(
        gatedReserve(
          gate,
          request({ appId: 'other-app', admissionToken: tokens.get('f2')!, queueFanId: 'f2' }),
          reserve,
        ),
      ),
    ).toMatch(/another app/);
    expect(ran).toBe(1);
  });

  it('gives the admission back when its reserve fails, and records what the reserve met', async () => {
    const { gate, probe, request, admitted } = setup();
    const tokens = await admitted(['f1']);
    const pass = request({ admissionToken: tokens.get('f1')!, queueFanId: 'f1' });
    const overloaded = Object.assign(new Error('too many'), { kind: 'unavailable' });
    await expect(gatedReserve(gate, pass, () => Promise.reject(overloaded))).rejects.toBe(
      overloaded,
    );
    // Given back: the same admission reserves now.
    expect(await gatedReserve(gate, pass, async () => 'held')).toBe('held');
    const sample = probe.sample(EVENT);
    expect(sample.reserves).toBe(2);
    expect(sample.overloaded).toBe(1);
    expect(probe.sample(EVENT).reserves).toBe(0);
  });

  it('marks the event sold out when a one-ticket reserve finds nothing; places back reopen it', async () => {
    const { gate, book, storage, request, admitted } = setup();
    const tokens = await admitted(['f1', 'f2']);
    const noneLeft = new CartError('resource_exhausted', ErrorCode.NO_INVENTORY, 'sold out');
    // What cart's core does on the partner's sold-out answer: its book notes the quantity refused.
    const refused = (quantity: number) => () => {
      book.markSoldOut(EVENT, [], quantity);
      return Promise.reject(noneLeft);
    };
    // Two tickets refused: the event may still have one, so it is not sold out.
    const pair = request({
      admissionToken: tokens.get('f2')!,
      queueFanId: 'f2',
      reserves: [{ tickets: [{ id: 'ADULT', quantity: 2 }] }] as never,
    });
    await expect(gatedReserve(gate, pair, refused(2))).rejects.toBe(noneLeft);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await storage.onSales.get(EVENT))?.soldOutAt).toBeUndefined();
    const one = request({ admissionToken: tokens.get('f1')!, queueFanId: 'f1' });
    await expect(gatedReserve(gate, one, refused(1))).rejects.toBe(noneLeft);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await storage.onSales.get(EVENT))?.soldOutAt).toBeInstanceOf(Date);
    // A hold released: the queue reopens for the fans still waiting.
    gate.placesReturned(EVENT);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await storage.onSales.get(EVENT))?.soldOutAt).toBeUndefined();
  });

  it('lets sandbox reserves through without an admission', async () => {
    const { gate, request, admitted } = setup();
    await admitted(['f1']);
    expect(await gatedReserve(gate, request({ sandbox: true }), async () => 'sandbox')).toBe(
      'sandbox',
    );
  });
});
