import { QueueStatus } from '@marquee/proto/cart/v1';
import { createServiceStores } from '@marquee/platform/store';
import { describe, expect, it } from 'vitest';
import {
  createAdmissionSigner,
  createWaitingRoom,
  createWaitingRoomStorage,
  DEFAULT_WAITING_ROOM_SETTINGS,
  waitingRoomGrpc,
} from '../../src/waiting-room/index.js';
import { passThroughWatch } from './watch.js';

// The gRPC port of the waiting room over the memory stores: requests checked, answers mapped.

const OPENS = new Date(Date.UTC(2030, 5, 1, 10));

function port() {
  let now = OPENS.getTime() - 10_000;
  let next = 0;
  const storage = createWaitingRoomStorage(createServiceStores(undefined));
  const room = createWaitingRoom(
    {
      ...storage,
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
    advance: (ms: number) => (now += ms),
    configure: (request: { eventId: string; opensAt?: Date; queue: boolean }) =>
      call(implementation.configureOnSale as never, request) as Promise<{
        onSale: { queue: boolean };
      }>,
    join: (request: { eventId: string; appId: string; fanId: string; deviceId: string }) =>
      call(implementation.joinQueue as never, request) as Promise<{
        ticket: { id: string; status: number; position: number; admissionToken: string };
        joined: boolean;
      }>,
    get: (request: { eventId: string; queueTicketId: string; appId: string }) =>
      call(implementation.getQueueTicket as never, request) as Promise<{
        ticket: {
          status: number;
          position: number;
          admissionToken: string;
          admissionExpiresAt?: Date;
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
});
