import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { createLogger } from '@marquee/platform/logger';
import {
  QueueStatus,
  WaitingRoomServiceService,
  type JoinQueueRequest,
  type QueueTicket,
  type ReportQueuePresenceRequest,
} from '@marquee/proto/cart/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWaitingRoomClient,
  toOnSaleRecord,
  toQueueTicketRecord,
} from '../src/adapters/waiting-room-client.js';

// The edge's client of cart's WaitingRoomService: what a join sends (the app's held-ticket
// quota with it) and how tickets and on-sales are mapped (held-back fans included).

const OPENS = new Date('2030-06-01T10:00:00Z');
const ticket = (extra: Partial<QueueTicket> = {}): QueueTicket => ({
  id: 'q_abcdefghijklmnop',
  eventId: 'E1',
  status: QueueStatus.QUEUE_STATUS_WAITING,
  position: 2,
  estimatedWaitSeconds: 0,
  opensAt: OPENS,
  admissionToken: '',
  joinedAt: OPENS,
  rank: 7,
  heldBack: false,
  ...extra,
});

const joins: JoinQueueRequest[] = [];
const presenceReports: ReportQueuePresenceRequest[] = [];
let server: grpc.Server;
let client: ReturnType<typeof createWaitingRoomClient>;

beforeAll(async () => {
  server = new grpc.Server();
  const unanswered = (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
    callback({ code: grpc.status.UNIMPLEMENTED } as grpc.ServiceError);
  server.addService(WaitingRoomServiceService, {
    configureOnSale: unanswered,
    getQueueTicket: unanswered,
    getQueueTickets: unanswered,
    getOnSale: unanswered,
    joinQueue: (
      call: grpc.ServerUnaryCall<JoinQueueRequest, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      joins.push(call.request);
      callback(null, { ticket: ticket({ heldBack: true }), joined: true });
    },
    reportQueuePresence: (
      call: grpc.ServerUnaryCall<ReportQueuePresenceRequest, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      presenceReports.push(call.request);
      callback(null, { fans: call.request.fans.length });
    },
  });
  const bind = promisify(server.bindAsync.bind(server));
  const port = await bind('127.0.0.1:0', grpc.ServerCredentials.createInsecure());
  client = createWaitingRoomClient(`127.0.0.1:${port}`, {
    deadlineMs: 5_000,
    logger: createLogger({ service: 'edge-test', level: 'silent' }),
  });
});

afterAll(async () => {
  client.close();
  await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
});

describe('the waiting room client', () => {
  it("joins with the app's held-ticket quota when the key check gave one, else leaves it to cart", async () => {
    const answer = await client.join(
      { appId: 'app-5', sandbox: false, heldTicketsPerEvent: 7 },
      'E1',
      { fanId: 'fan-1' },
    );
    expect(answer).toMatchObject({ joined: true, ticket: { status: 'WAITING', heldBack: true } });
    await client.join({ appId: 'app-1', sandbox: false }, 'E1', { deviceId: 'd-1' });
    await client.join({ appId: 'app-6', sandbox: false, heldTicketsPerEvent: 0 }, 'E1', {
      fanId: 'fan-2',
    });
    expect(joins.map((j) => [j.appId, j.heldTicketsPerEvent])).toEqual([
      ['app-5', 7],
      ['app-1', undefined],
      ['app-6', 0],
    ]);
  });

  it("reports an event's waiting fans with when each last asked, in ms since the epoch", async () => {
    const seenAtMs = OPENS.getTime() + 1_234;
    await client.reportPresence('E1', 'edge-7', [{ ticketId: 'q_abcdefghijklmnop', seenAtMs }]);
    await client.reportPresence('E2', 'edge-7', []);
    expect(presenceReports).toEqual([
      {
        eventId: 'E1',
        reporter: 'edge-7',
        fans: [{ queueTicketId: 'q_abcdefghijklmnop', seenAtMs }],
      },
      { eventId: 'E2', reporter: 'edge-7', fans: [] },
    ]);
  });

  it("maps a held-back fan's ticket, and the on-sale's per-app admissions of held-back fans", () => {
    expect(toQueueTicketRecord(ticket({ heldBack: true }))).toEqual({
      id: 'q_abcdefghijklmnop',
      eventId: 'E1',
      status: 'WAITING',
      position: 2,
      opensAt: OPENS,
      joinedAt: OPENS,
      rank: 7,
      heldBack: true,
    });
    expect(toQueueTicketRecord(ticket())).not.toHaveProperty('heldBack');
    const base = {
      eventId: 'E1',
      opensAt: OPENS,
      queue: true,
      earlyCount: 9,
      admittedThrough: 8,
      admissionHorizon: 0,
      admissionsPerSecond: 0,
    };
    expect(toOnSaleRecord({ ...base, heldBackThrough: { 'app-5': 3 } })).toMatchObject({
      admittedThrough: 8,
      heldBackThrough: { 'app-5': 3 },
    });
    expect(toOnSaleRecord({ ...base, heldBackThrough: {} })).not.toHaveProperty('heldBackThrough');
    // The admission rate, when the admitter knows one (0: not known, so no estimate is worked out).
    expect(
      toOnSaleRecord({ ...base, heldBackThrough: {}, admissionsPerSecond: 12.5 }),
    ).toMatchObject({ admissionsPerSecond: 12.5 });
    expect(toOnSaleRecord({ ...base, heldBackThrough: {} })).not.toHaveProperty(
      'admissionsPerSecond',
    );
  });
});
