import { JoinQueueResponse, QueueStatus } from '@marquee/proto/cart/v1';
import { createServiceStores } from '@marquee/platform/store';
import { describe, expect, it } from 'vitest';
import {
  createAdmissionSigner,
  createAppHoldings,
  createWaitingRoom,
  createWaitingRoomStorage,
  DEFAULT_WAITING_ROOM_SETTINGS,
  waitingRoomGrpc,
} from '../../src/waiting-room/index.js';
import { passThroughWatch } from './watch.js';
import {
  earlyOrderKey,
  viewOf,
  type OnSale,
  type QueueTicket,
} from '../../src/waiting-room/domain/queue.js';
import { queueTicketMessage } from '../../src/waiting-room/ports/grpc/waiting-room-grpc.js';
import type { AppHoldings } from '../../src/waiting-room/app/ports.js';
import { noQuota } from './holdings.js';

// The gRPC port of the waiting room over the memory stores: requests checked, answers mapped.

const OPENS = new Date(Date.UTC(2030, 5, 1, 10));

function port(holdings: AppHoldings = noQuota) {
  let now = OPENS.getTime() - 10_000;
  let next = 0;
  const storage = createWaitingRoomStorage(createServiceStores(undefined));
  const room = createWaitingRoom(
    {
      ...storage,
      holdings,
      signer: createAdmissionSigner(Buffer.alloc(32, 3)),
      probe: { sample: () => ({ reserves: 0, overloaded: 0, p95LatencyMs: 0 }) },
      clock: { now: () => new Date(now) },
      ids: { queueTicketId: () => `q${(next += 1)}`, lottery: () => next * 1_000 },
      settings: DEFAULT_WAITING_ROOM_SETTINGS,
      // Reads here never wait (no `waitMs`): the watch is not asked.
      watch: passThroughWatch(storage.onSales),
    },
    'r1',
  );
  const { implementation } = waitingRoomGrpc(room);
  const call = <Req, Res>(
    handler: (call: { request: Req }, cb: (e: Error | null, r?: Res) => void) => void,
    request: Req,
  ) =>
    new Promise<Res>((resolve, reject) =>
      handler({ request }, (error, response) => (error ? reject(error) : resolve(response!))),
    );
  return {
    room,
    storage,
    advance: (ms: number) => (now += ms),
    configure: (request: { eventId: string; opensAt?: Date; queue: boolean }) =>
      call(implementation.configureOnSale as never, request) as Promise<{
        onSale: { queue: boolean };
      }>,
    join: (request: {
      eventId: string;
      appId: string;
      fanId: string;
      deviceId: string;
      heldTicketsPerEvent?: number;
    }) =>
      call(implementation.joinQueue as never, request) as Promise<{
        ticket: {
          id: string;
          status: number;
          position: number;
          rank: number;
          admissionToken: string;
          heldBack: boolean;
        };
        joined: boolean;
      }>,
    get: (request: { eventId: string; queueTicketId: string; appId: string }) =>
      call(implementation.getQueueTicket as never, request) as Promise<{
        ticket: {
          status: number;
          heldBack: boolean;
          position: number;
          rank: number;
          admissionToken: string;
          admissionExpiresAt?: Date;
        };
      }>,
    getMany: (request: {
      eventId: string;
      tickets: Array<{ queueTicketId: string; appId: string }>;
    }) =>
      call(implementation.getQueueTickets as never, request) as Promise<{
        tickets: Array<{ id: string; status: number; position: number; rank: number }>;
      }>,
    report: (request: {
      eventId: string;
      reporter: string;
      fans: ReadonlyArray<{ queueTicketId: string; seenAtMs: number }>;
    }) => call(implementation.reportQueuePresence as never, request) as Promise<{ fans: number }>,
    onSale: (request: { eventId: string }) =>
      call(implementation.getOnSale as never, request) as Promise<{
        onSale: {
          queue: boolean;
          frozenAt?: Date;
          admittedThrough: number;
          earlyCount: number;
          admissionHorizon: number;
          heldBackThrough: Record<string, number>;
          admissionsPerSecond: number;
        };
      }>,
  };
}

describe('the waiting room gRPC port', () => {
  it('configures, joins and answers the ticket as the fan sees it, the admission included', async () => {
    const sut = port();
    expect((await sut.configure({ eventId: 'E1', opensAt: OPENS, queue: true })).onSale.queue).toBe(
      true,
    );
    const joined = await sut.join({ eventId: 'E1', appId: 'a', fanId: 'f1', deviceId: '' });
    expect(joined).toMatchObject({
      joined: true,
      ticket: { status: QueueStatus.QUEUE_STATUS_WAITING, position: 0 },
    });
    sut.advance(12_000);
    await sut.room.admitter.handle('E1');
    const before = await sut.get({ eventId: 'E1', queueTicketId: joined.ticket.id, appId: 'a' });
    expect(before.ticket).toMatchObject({ status: QueueStatus.QUEUE_STATUS_WAITING, position: 1 });
    await sut.room.admitter.handle('E1');
    const after = await sut.get({ eventId: 'E1', queueTicketId: joined.ticket.id, appId: 'a' });
    expect(after.ticket.status).toBe(QueueStatus.QUEUE_STATUS_ADMITTED);
    expect(after.ticket.admissionToken).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(after.ticket.admissionExpiresAt).toBeInstanceOf(Date);
  });

  it('refuses missing fields and another app’s ticket', async () => {
    const sut = port();
    await expect(sut.configure({ eventId: 'E1', queue: true })).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: expect.objectContaining({ field: 'opens_at' }),
    });
    await sut.configure({ eventId: 'E1', opensAt: OPENS, queue: true });
    await expect(
      sut.join({ eventId: 'E1', appId: '', fanId: 'f', deviceId: '' }),
    ).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    const { ticket } = await sut.join({ eventId: 'E1', appId: 'a', fanId: '', deviceId: 'd1' });
    await expect(
      sut.get({ eventId: 'E1', queueTicketId: ticket.id, appId: 'b' }),
    ).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('keeps a replica’s presence report, and refuses one without its fields or too large', async () => {
    const sut = port();
    const seenAtMs = OPENS.getTime() - 20_000;
    const fans = [
      { queueTicketId: 'q1', seenAtMs },
      // A time ahead of cart's clock counts as now.
      { queueTicketId: 'q2', seenAtMs: OPENS.getTime() + 3_600_000 },
    ];
    expect(await sut.report({ eventId: 'E1', reporter: 'edge-1', fans })).toEqual({ fans: 2 });
    expect(Object.fromEntries(await sut.storage.presence.seenOf('E1', new Date(seenAtMs)))).toEqual(
      { q1: seenAtMs, q2: OPENS.getTime() - 10_000 },
    );
    for (const [request, field] of [
      [{ eventId: '', reporter: 'edge-1', fans }, 'event_id'],
      [{ eventId: 'E1', reporter: '', fans }, 'reporter'],
      [
        { eventId: 'E1', reporter: 'edge-1', fans: [{ queueTicketId: '', seenAtMs }] },
        'fans.queue_ticket_id',
      ],
      [
        { eventId: 'E1', reporter: 'edge-1', fans: [{ queueTicketId: 'q1', seenAtMs: 0 }] },
        'fans.seen_at_ms',
      ],
      [
        {
          eventId: 'E1',
          reporter: 'edge-1',
          fans: Array.from({ length: 50_001 }, (_, i) => ({ queueTicketId: `q${i}`, seenAtMs })),
        },
        'fans',
      ],
    ] as const)
      await expect(sut.report(request)).rejects.toMatchObject({
        kind: 'invalid_argument',
        details: expect.objectContaining({ field }),
      });
  });

  it('answers the on-sale and each waiting ticket’s rank, what the edge’s long polls wait on', async () => {
    const sut = port();
    await expect(sut.onSale({ eventId: 'E1' })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(sut.onSale({ eventId: '' })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await sut.configure({ eventId: 'E1', opensAt: OPENS, queue: true });
    const first = await sut.join({ eventId: 'E1', appId: 'a', fanId: 'f1', deviceId: '' });
    const second = await sut.join({ eventId: 'E1', appId: 'a', fanId: 'f2', deviceId: '' });
    const read = (id: string) => sut.get({ eventId: 'E1', queueTicketId: id, appId: 'a' });
    // Before the opening ordered the early joiners: no rank yet, nothing frozen.
    expect((await read(first.ticket.id)).ticket.rank).toBe(0);
    expect((await sut.onSale({ eventId: 'E1' })).onSale).toMatchObject({ queue: true });
    expect((await sut.onSale({ eventId: 'E1' })).onSale.frozenAt).toBeUndefined();
    sut.advance(12_000);
    await sut.room.admitter.handle('E1');
    const ranks = [(await read(first.ticket.id)).ticket, (await read(second.ticket.id)).ticket];
    expect(ranks.map((t) => t.rank).sort()).toEqual([1, 2]);
    expect(ranks.every((t) => t.position === t.rank)).toBe(true);
    const onSale = (await sut.onSale({ eventId: 'E1' })).onSale;
    // The horizon: two admitter batches past the admitted ranks (a tick's lost record covered).
    expect(onSale).toMatchObject({
      queue: true,
      earlyCount: 2,
      admittedThrough: 0,
      admissionHorizon: 2 * DEFAULT_WAITING_ROOM_SETTINGS.admitBatch,
    });
    expect(onSale.frozenAt).toBeInstanceOf(Date);
    // Several tickets in one call: another app's ticket and an unknown id are left out.
    const many = await sut.getMany({
      eventId: 'E1',
      tickets: [
        { queueTicketId: first.ticket.id, appId: 'a' },
        { queueTicketId: second.ticket.id, appId: 'b' },
        { queueTicketId: 'q-unknown', appId: 'a' },
      ],
    });
    expect(many.tickets).toEqual([
      expect.objectContaining({ id: first.ticket.id, rank: ranks[0]!.rank }),
    ]);
    await expect(
      sut.getMany({ eventId: 'E1', tickets: [{ queueTicketId: '', appId: 'a' }] }),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
    const tooMany = Array.from({ length: 501 }, (_, i) => ({ queueTicketId: `q${i}`, appId: 'a' }));
    await expect(sut.getMany({ eventId: 'E1', tickets: tooMany })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    // A late join is answered as inserted, with its rank behind the early joiners; a repeat of it
    // is read again and answers the same.
    const late = await sut.join({ eventId: 'E1', appId: 'a', fanId: 'f3', deviceId: '' });
    expect(late).toMatchObject({ joined: true, ticket: { rank: 3, position: 3 } });
    const again = await sut.join({ eventId: 'E1', appId: 'a', fanId: 'f3', deviceId: '' });
    expect(again).toMatchObject({ joined: false, ticket: { id: late.ticket.id, rank: 3 } });
    // Admitted: the rank is no longer given (only a WAITING ticket's is).
    sut.advance(1_000);
    await sut.room.admitter.handle('E1');
    const admitting = (await sut.onSale({ eventId: 'E1' })).onSale;
    expect(admitting.admittedThrough).toBeGreaterThanOrEqual(2);
    // The admitter's rate goes with it: the edge works a fan's estimated wait out from it.
    expect(onSale.admissionsPerSecond).toBe(0);
    expect(admitting.admissionsPerSecond).toBeGreaterThan(0);
    const admitted = (await read(first.ticket.id)).ticket;
    expect(admitted).toMatchObject({ status: QueueStatus.QUEUE_STATUS_ADMITTED, rank: 0 });
  });

  it("passes the app's held-ticket quota of the join to the admitter, and answers who waits held back", async () => {
    const sut = port(createAppHoldings({ findLive: () => Promise.resolve([]) }, 20));
    await sut.configure({ eventId: 'E1', opensAt: OPENS, queue: true });
    const fan = (fanId: string, heldTicketsPerEvent?: number) =>
      sut.join({
        eventId: 'E1',
        appId: 'a',
        fanId,
        deviceId: '',
        ...(heldTicketsPerEvent !== undefined ? { heldTicketsPerEvent } : {}),
      });
    await expect(fan('f0', -1)).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: expect.objectContaining({ field: 'held_tickets_per_event' }),
    });
    const first = await fan('f1', 1);
    const second = await fan('f2', 1);
    expect(first.ticket.heldBack).toBe(false);
    sut.advance(12_000);
    await sut.room.admitter.handle('E1');
    await sut.room.admitter.handle('E1');
    const read = (id: string) => sut.get({ eventId: 'E1', queueTicketId: id, appId: 'a' });
    expect((await read(first.ticket.id)).ticket).toMatchObject({
      status: QueueStatus.QUEUE_STATUS_ADMITTED,
      heldBack: false,
    });
    expect((await read(second.ticket.id)).ticket).toMatchObject({
      status: QueueStatus.QUEUE_STATUS_WAITING,
      heldBack: true,
      position: 1,
      rank: 2,
    });
    expect((await sut.onSale({ eventId: 'E1' })).onSale).toMatchObject({
      admittedThrough: 2,
      heldBackThrough: { a: 1 },
    });
  });
});

describe('a queue ticket on the wire', () => {
  it('encodes the wait of an on-sale whose admissions all but stopped', () => {
    const at = (ms: number) => new Date(OPENS.getTime() + ms);
    const ticket: QueueTicket = {
      id: 'q1',
      eventId: 'E1',
      appId: 'app',
      identity: 'fan:f',
      joinedAt: at(-5_000),
      early: true,
      orderKey: earlyOrderKey(1, 'q1'),
      state: 'WAITING',
      seenAt: at(-5_000),
    };
    const onSale: OnSale = {
      eventId: 'E1',
      opensAt: OPENS,
      queue: true,
      frozenAt: at(1_000),
      earlyCount: 100,
      admittedThrough: 40,
      // What an average of admissions decays to, tick after tick, once none come.
      admissionsPerSecond: 1e-300,
      updatedAt: OPENS,
    };
    const view = viewOf(ticket, onSale, { now: at(60_000), rank: 90, admissionTtlMs: 120_000 });
    const bytes = JoinQueueResponse.encode({
      ticket: queueTicketMessage({ ticket, view, rank: 90 }),
      joined: true,
    }).finish();
    expect(JoinQueueResponse.decode(bytes).ticket?.estimatedWaitSeconds).toBe(2 ** 31 - 1);
  });
});
