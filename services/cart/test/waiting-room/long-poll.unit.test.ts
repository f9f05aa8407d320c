import { createServiceStores } from '@marquee/platform/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createOnSaleWatch } from '../../src/waiting-room/adapters/onsale-watch.js';
import {
  createAdmissionSigner,
  createWaitingRoom,
  createWaitingRoomStorage,
  DEFAULT_WAITING_ROOM_SETTINGS,
} from '../../src/waiting-room/index.js';
import { noQuota } from './holdings.js';

// Long polling of queue tickets: a WAITING fan's read is answered when its admission, a sell-out
// or its rank comes, or when its wait runs out; one on-sale read per poll serves every waiter.
// The clock runs in real time from a point before the opening (`skip` moves it on).

const OPENS = Date.UTC(2030, 5, 1, 10);
const EVENT = 'E1';
const APP = 'app-1';
let stopWatch: (() => void) | undefined;
afterEach(() => stopWatch?.());

function setup() {
  const started = Date.now();
  let offset = OPENS - 60_000;
  const clock = { now: () => new Date(offset + (Date.now() - started)) };
  const storage = createWaitingRoomStorage(createServiceStores(undefined));
  let reads = 0;
  const counted = {
    ...storage.onSales,
    get: (eventId: string) => {
      reads += 1;
      return storage.onSales.get(eventId);
    },
  };
  const watch = createOnSaleWatch(counted, { pollMs: 20, onError: (e) => console.error(e) });
  stopWatch = () => watch.stop();
  let next = 0;
  const room = createWaitingRoom(
    {
      ...storage,
      holdings: noQuota,
      signer: createAdmissionSigner(Buffer.alloc(32, 9)),
      probe: { sample: () => ({ reserves: 0, overloaded: 0, p95LatencyMs: 0 }) },
      watch,
      clock,
      ids: { queueTicketId: () => `q_t${(next += 1)}`, lottery: () => next * 1_000 },
      settings: DEFAULT_WAITING_ROOM_SETTINGS,
    },
    'replica-a',
  );
  return {
    room,
    reads: () => reads,
    skip: (ms: number) => (offset += ms),
    join: async (fanId: string) =>
      (await room.join.handle({ eventId: EVENT, appId: APP, fanId })).ticket.id,
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('long polling a queue ticket', () => {
  it('answers a waiting fan when the opening gives it a rank, then when it is admitted', async () => {
    const { room, skip, join } = setup();
    await room.configure.handle(EVENT, { opensAt: new Date(OPENS), queue: true });
    const id = await join('f1');
    const ranked = room.read.handle(EVENT, id, APP, 20_000);
    await pause(50);
    skip(65_000);
    expect((await room.admitter.handle(EVENT)).kind).toBe('frozen');
    const freezeAt = Date.now();
    const first = await ranked;
    // Answered at the freeze, not when the 20 s wait ran out.
    expect(Date.now() - freezeAt).toBeLessThan(10_000);
    expect(first.view).toMatchObject({ status: 'WAITING', position: 1 });
    expect(first.rank).toBe(1);
    const admitted = room.read.handle(EVENT, id, APP, 20_000);
    await pause(50);
    expect((await room.admitter.handle(EVENT)).kind).toBe('admitted');
    const second = await admitted;
    expect(second.view.status).toBe('ADMITTED');
    expect(second.admissionToken).toBeTruthy();
  });

  it('tells every waiting fan SOLD_OUT, with one on-sale read per poll for all of them', async () => {
    const { room, skip, join, reads } = setup();
    await room.configure.handle(EVENT, { opensAt: new Date(OPENS), queue: true });
    const ids = [];
    for (let i = 0; i < 30; i += 1) ids.push(await join(`fan-${i}`));
    skip(65_000);
    expect((await room.admitter.handle(EVENT)).kind).toBe('frozen');
    // Past the watch's 20 ms of trusting its last read: the fans read their ranks at once (a read
    // from before the freeze would answer each fan its new rank first).
    await pause(50);
    const polls = ids.map((id) => room.read.handle(EVENT, id, APP, 20_000));
    await pause(100);
    const before = reads();
    await room.soldOut.handle(EVENT, true);
    const answers = await Promise.all(polls);
    expect(answers.map((a) => a.view.status)).toEqual(ids.map(() => 'SOLD_OUT'));
    // The 30 re-reads after the change each read the on-sale once (the use case's own read);
    // the watch read it once per poll for all 30, not once per fan and poll.
    expect(reads() - before).toBeLessThan(30 + 10);
  });

  it('answers WAITING when the wait runs out, and at once without a wait', async () => {
    const { room, join } = setup();
    await room.configure.handle(EVENT, { opensAt: new Date(OPENS), queue: true });
    const id = await join('f1');
    const started = Date.now();
    expect((await room.read.handle(EVENT, id, APP, 300)).view.status).toBe('WAITING');
    // The wait may end up to a fifth early (jitter), never at once.
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect((await room.read.handle(EVENT, id, APP)).view.status).toBe('WAITING');
  });
});

describe("the on-sale watch's remembered reads", () => {
  it('drops stale reads once it remembers many events, so callers cannot grow it', async () => {
    const watch = createOnSaleWatch(
      { get: async () => undefined },
      { pollMs: 20, onError: (e) => console.error(e) },
    );
    // Joins and reads name any event id: 10,000 distinct ones are remembered at most...
    for (let i = 0; i < 10_000; i += 1) await watch.latest(`E${i}`);
    expect(watch.remembered()).toBe(10_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // ...and the next read past that drops every read older than the watch trusts (20 ms).
    await watch.latest('E-next');
    expect(watch.remembered()).toBe(1);
    watch.stop();
  });
});
