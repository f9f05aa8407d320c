import {
  QueueStatus,
  WaitingRoomServiceService,
  type OnSale as OnSaleMessage,
  type QueueTicket as QueueTicketMessage,
} from '@marquee/proto/cart/v1';
import { unary } from '@marquee/platform/grpc';
import { MAX_WAIT_MS, type QueueTicketAnswer } from '../../app/read-queue-ticket.js';
import { invalidInput } from '../../../domain/errors.js';
import type { OnSale } from '../../domain/queue.js';
import type { WaitingRoom } from '../../app/waiting-room.js';

const STATUS = {
  WAITING: QueueStatus.QUEUE_STATUS_WAITING,
  ADMITTED: QueueStatus.QUEUE_STATUS_ADMITTED,
  SOLD_OUT: QueueStatus.QUEUE_STATUS_SOLD_OUT,
  EXPIRED: QueueStatus.QUEUE_STATUS_EXPIRED,
} as const;

export function onSaleMessage(onSale: OnSale & { admissionHorizon?: number }): OnSaleMessage {
  return {
    admissionHorizon: onSale.admissionHorizon ?? 0,
    eventId: onSale.eventId,
    opensAt: onSale.opensAt,
    queue: onSale.queue,
    ...(onSale.frozenAt ? { frozenAt: onSale.frozenAt } : {}),
    earlyCount: onSale.earlyCount,
    admittedThrough: onSale.admittedThrough,
    ...(onSale.soldOutAt ? { soldOutAt: onSale.soldOutAt } : {}),
    heldBackThrough: { ...onSale.heldBackThrough },
    admissionsPerSecond: onSale.admissionsPerSecond,
  };
}

/** A queue ticket as its fan sees it. */
export function queueTicketMessage(answer: QueueTicketAnswer): QueueTicketMessage {
  const { ticket, view } = answer;
  return {
    id: ticket.id,
    eventId: ticket.eventId,
    status: STATUS[view.status],
    position: view.status === 'WAITING' ? (view.position ?? 0) : 0,
    estimatedWaitSeconds: view.status === 'WAITING' ? (view.estimatedWaitSeconds ?? 0) : 0,
    ...(view.status === 'WAITING' ? { opensAt: view.opensAt } : {}),
    admissionToken: answer.admissionToken ?? '',
    ...(view.status === 'ADMITTED' ? { admissionExpiresAt: view.expiresAt } : {}),
    joinedAt: ticket.joinedAt,
    rank: view.status === 'WAITING' ? (answer.rank ?? 0) : 0,
    heldBack: view.status === 'WAITING' && view.heldBack === true,
  };
}

/** The most tickets one `GetQueueTickets` reads. */
const MAX_TICKETS_READ = 500;

const required = (value: string, field: string) => {
  if (!value) throw invalidInput(`${field} is required`, field);
  return value;
};

/** `JoinQueue`: the fan's place, with its app's held-ticket quota for the admitter. */
const joinQueue = (room: WaitingRoom) =>
  unary(
    async (request: {
      eventId: string;
      appId: string;
      fanId: string;
      deviceId: string;
      heldTicketsPerEvent?: number | undefined;
    }) => {
      const eventId = required(request.eventId, 'event_id');
      const appId = required(request.appId, 'app_id');
      const limit = request.heldTicketsPerEvent;
      if (limit !== undefined && limit < 0)
        throw invalidInput('held_tickets_per_event must be 0 or more', 'held_tickets_per_event');
      const { ticket, joined } = await room.join.handle({
        eventId,
        appId,
        ...(request.fanId ? { fanId: request.fanId } : {}),
        ...(request.deviceId ? { deviceId: request.deviceId } : {}),
        ...(limit !== undefined ? { heldTicketsPerEvent: limit } : {}),
      });
      // A new ticket is answered as inserted; a repeat is read as any ask reads it.
      const answer = joined
        ? await room.read.joined(ticket)
        : await room.read.handle(eventId, ticket.id, appId);
      return { ticket: queueTicketMessage(answer), joined };
    },
  );

/** The gRPC service of the waiting room (proto/marquee/cart/v1/waiting_room.proto). */
export function waitingRoomGrpc(
  room: WaitingRoom,
  /** Called after an operator's change of the event's on-sale (this replica's caches). */
  configured: (eventId: string) => void = () => undefined,
) {
  return {
    definition: WaitingRoomServiceService,
    implementation: {
      configureOnSale: unary(
        async (request: { eventId: string; opensAt?: Date; queue: boolean }) => {
          if (!request.opensAt) throw invalidInput('opens_at is required', 'opens_at');
          const onSale = await room.configure.handle(required(request.eventId, 'event_id'), {
            opensAt: request.opensAt,
            queue: request.queue,
          });
          configured(onSale.eventId);
          return { onSale: onSaleMessage(onSale) };
        },
      ),
      joinQueue: joinQueue(room),
      getQueueTicket: unary(
        async (request: {
          eventId: string;
          queueTicketId: string;
          appId: string;
          waitSeconds: number;
        }) => {
          const waitSeconds = request.waitSeconds ?? 0;
          if (waitSeconds < 0 || waitSeconds > MAX_WAIT_MS / 1000)
            throw invalidInput(`wait_seconds must be 0 to ${MAX_WAIT_MS / 1000}`, 'wait_seconds');
          const answer = await room.read.handle(
            required(request.eventId, 'event_id'),
            required(request.queueTicketId, 'queue_ticket_id'),
            required(request.appId, 'app_id'),
            waitSeconds * 1000,
          );
          return { ticket: queueTicketMessage(answer) };
        },
      ),
      getQueueTickets: unary(
        async (request: {
          eventId: string;
          tickets: Array<{ queueTicketId: string; appId: string }>;
        }) => {
          const eventId = required(request.eventId, 'event_id');
          const refs = request.tickets ?? [];
          if (refs.length > MAX_TICKETS_READ)
            throw invalidInput(`at most ${MAX_TICKETS_READ} tickets at once`, 'tickets');
          const answers = await room.read.handleMany(
            eventId,
            refs.map((ref) => ({
              ticketId: required(ref.queueTicketId, 'tickets.queue_ticket_id'),
              appId: required(ref.appId, 'tickets.app_id'),
            })),
          );
          return { tickets: answers.map(queueTicketMessage) };
        },
      ),
      reportQueuePresence: unary(
        async (request: {
          eventId: string;
          reporter: string;
          fans: Array<{ queueTicketId: string; seenAtMs: number }>;
        }) => ({
          fans: await room.presence.handle(
            required(request.eventId, 'event_id'),
            required(request.reporter, 'reporter'),
            (request.fans ?? []).map((fan) => ({
              ticketId: fan.queueTicketId,
              seenAtMs: Number(fan.seenAtMs),
            })),
          ),
        }),
      ),
      getOnSale: unary(async (request: { eventId: string }) => ({
        onSale: onSaleMessage(await room.onSale.handle(required(request.eventId, 'event_id'))),
      })),
    },
  };
}
