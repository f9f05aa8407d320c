import { randomUUID } from 'node:crypto';
import { errorKindOf } from '@marquee/platform/kernel';
import { LogThrottle } from '@marquee/platform/logger';
import { metrics } from '@marquee/platform/metrics';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import {
  createOnSaleWatch,
  MAX_WAIT_SECONDS,
  QueueLongPolls,
} from '../../../app/queue-long-polls.js';
import { QueuePresenceTracker } from '../../../app/queue-presence.js';
import type { QueueTicketRecord, WaitingRoomBackend } from '../../../app/waiting-room.js';
import type { PartnerCartContext } from './context.js';
import { EventParams, KeyQuery, QUEUE_IDENTITY, errorResponses } from './schemas.js';

/** When a fan that does not long-poll should ask again while WAITING. */
const POLL_AFTER_SECONDS = 2;
/** How often a replica asks cart for an event's on-sale while its fans long-poll (cart's watch reads it as often). */
const ON_SALE_POLL_MS = 500;
/** Calls for queue tickets in flight to cart from one scope; reads asked meanwhile are batched. */
const TICKET_CALLS_IN_FLIGHT = 4;
/** The most tickets one call reads (cart takes up to 500). */
const TICKETS_PER_CALL = 100;
/** A failed presence report is logged once a minute at most per error kind, with the count left out. */
const PRESENCE_FAILURE_LOG_MS = 60_000;

/** Presence reports cart did not take (its fans are then read to keep them in the queue). */
const presenceReportFailures = metrics.counter('marquee_queue_presence_report_failures', {
  description:
    "Reports of an event's waiting fans that cart did not take (the edge then reads their tickets)",
});

const JoinBody = Type.Object(
  {
    fan_id: Type.Optional(
      Type.String({ ...QUEUE_IDENTITY, description: "The app's id of a signed-in fan; wins" }),
    ),
    device_id: Type.Optional(
      Type.String({ ...QUEUE_IDENTITY, description: "The app's id of the fan's device" }),
    ),
  },
  { additionalProperties: false },
);

const TicketParams = Type.Object({
  event_id: EventParams.properties.event_id,
  queue_ticket_id: Type.String({ pattern: '^q_[A-Za-z0-9_-]{10,64}$' }),
});

const WaitQuery = Type.Object({
  ...KeyQuery.properties,
  wait: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_WAIT_SECONDS,
      description:
        'Long polling: while the ticket is WAITING, answer once what it reads may have changed (its rank at the opening, its admission, a sell-out) or after this many seconds (default 0: at once)',
    }),
  ),
});

const QueueTicket = Type.Object(
  {
    id: Type.String({ description: 'Queue ticket id' }),
    event_id: Type.String(),
    status: Type.Union(
      [
        Type.Literal('WAITING'),
        Type.Literal('ADMITTED'),
        Type.Literal('SOLD_OUT'),
        Type.Literal('EXPIRED'),
      ],
      {
        description:
          'WAITING: in the queue. ADMITTED: reserve now with `admission_token` (header `X-Admission-Token`, with `X-Fan-Id` or `X-Device-Id` as joined) before `admission_expires_at`. SOLD_OUT: the event sold out. EXPIRED: the admission was spent or ran out, or the fan stopped asking and left the queue.',
      },
    ),
    position: Type.Optional(
      Type.Integer({
        description: 'Fans ahead plus one (WAITING, once the opening ordered the early joiners)',
      }),
    ),
    estimated_wait_seconds: Type.Optional(
      Type.Integer({ description: 'Until admission at the current rate (WAITING, when known)' }),
    ),
    opens_at: Type.Optional(Type.String({ format: 'date-time' })),
    admission_token: Type.Optional(Type.String()),
    admission_expires_at: Type.Optional(Type.String({ format: 'date-time' })),
    joined_at: Type.String({ format: 'date-time' }),
    held_back: Type.Optional(
      Type.Boolean({
        description:
          "WAITING, held back (true; absent otherwise): the fan's turn came while the app held its quota of tickets of the event (`heldTicketsPerEvent`: tickets in its pending, held and paid carts plus its fans admitted and not yet reserved). The fan keeps its place and is admitted, before fans behind it, once the app's carts free room (released, expired, or an admission unused); `position` then counts from the app's last admitted fan, and there is no `estimated_wait_seconds`.",
      }),
    ),
    poll_after_seconds: Type.Integer({
      description:
        'When to ask again (WAITING); ask with `wait` to be answered on a change instead',
    }),
  },
  { additionalProperties: false },
);

/** A queue ticket in the partner family's snake_case body. */
export function renderQueueTicket(t: QueueTicketRecord): Static<typeof QueueTicket> {
  return {
    id: t.id,
    event_id: t.eventId,
    status: t.status,
    ...(t.position !== undefined ? { position: t.position } : {}),
    ...(t.estimatedWaitSeconds !== undefined
      ? { estimated_wait_seconds: t.estimatedWaitSeconds }
      : {}),
    ...(t.opensAt ? { opens_at: t.opensAt.toISOString() } : {}),
    ...(t.admissionToken ? { admission_token: t.admissionToken } : {}),
    ...(t.admissionExpiresAt ? { admission_expires_at: t.admissionExpiresAt.toISOString() } : {}),
    joined_at: t.joinedAt.toISOString(),
    ...(t.heldBack ? { held_back: true } : {}),
    poll_after_seconds: t.status === 'WAITING' ? POLL_AFTER_SECONDS : 0,
  };
}

/**
 * The presence reports of the fans waiting at this edge (app/queue-presence.ts), under a random id
 * made here: one tracker shared by the queue routes of every scope (both prefixes of the family),
 * since a report replaces its reporter's last for the event (two scopes reporting under one id
 * would each withdraw the other's fans). `queueRoutes` stops it with the server.
 */
export function createQueuePresence(
  room: WaitingRoomBackend,
  log: FastifyBaseLogger,
): QueuePresenceTracker {
  const throttle = new LogThrottle(PRESENCE_FAILURE_LOG_MS);
  return new QueuePresenceTracker(room, {
    reporter: randomUUID(),
    onError: (err, eventId) => {
      presenceReportFailures.add(1);
      const suppressed = throttle.admit(errorKindOf(err) ?? 'unknown');
      if (suppressed === undefined) return;
      log.warn(
        { err, eventId, suppressed_since_last: suppressed },
        "reporting waiting fans' presence to cart failed: their tickets are read instead",
      );
    },
  });
}

/**
 * `/events/{event_id}/queue`: the waiting room of an on-sale, for partner apps. POST joins a fan
 * (one place per fan or device of the app; a repeat answers the same ticket, 200 instead of
 * 201); GET follows the ticket, long-polled with `wait`: the edge holds the long poll (one watch
 * of the event's on-sale per scope and replica, app/queue-long-polls.ts), not cart, and tells
 * cart which fans wait through `presence` (`createQueuePresence`, shared by every scope).
 */
export function queueRoutes(
  scope: FastifyInstance,
  context: PartnerCartContext,
  room: WaitingRoomBackend,
  presence: QueuePresenceTracker,
): void {
  const { tags, summary, callerOf } = context;
  const watch = createOnSaleWatch((eventId) => room.onSale(eventId), {
    pollMs: ON_SALE_POLL_MS,
    onError: (err, eventId) =>
      scope.log.warn({ err, eventId }, 'reading the on-sale for waiting fans failed'),
  });
  // Before the server waits for requests in flight: held long polls answer now, and the presence
  // reports stop (the fans' next polls reach another replica, which reports them).
  scope.addHook('preClose', async () => {
    watch.stop();
    presence.stop();
  });
  const longPolls = new QueueLongPolls(room, watch, {
    maxBatch: TICKETS_PER_CALL,
    batchesInFlight: TICKET_CALLS_IN_FLIGHT,
    presence,
  });
  const ticketUrl = (eventId: string, id: string) =>
    `${scope.prefix}/events/${eventId}/queue/${id}`;
  scope.post(
    '/events/:event_id/queue',
    {
      schema: {
        tags,
        summary: summary("Join a fan to the event's waiting room"),
        description:
          'While an operator has a queue on for the event, reserves need an admission. Fans who join before the opening are ordered at random at it (the fastest client does not win); later fans queue in arrival order. One identity (`fan_id`, else `device_id`) of an app holds one place: a repeat answers the ticket it holds (200). A fan is admitted only while the app has room under its held-ticket quota of the event (`heldTicketsPerEvent`); until then it waits `held_back`, keeping its place. 404 code 90003 when the event has no queue on.',
        params: EventParams,
        querystring: KeyQuery,
        body: JoinBody,
        response: {
          200: QueueTicket,
          201: QueueTicket,
          ...errorResponses(403, 404, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const { event_id } = request.params as Static<typeof EventParams>;
      const body = request.body as Static<typeof JoinBody>;
      const { ticket, joined } = await room.join(callerOf(request), event_id, {
        ...(body.fan_id ? { fanId: body.fan_id } : {}),
        ...(body.device_id ? { deviceId: body.device_id } : {}),
      });
      return reply
        .code(joined ? 201 : 200)
        .header('location', ticketUrl(event_id, ticket.id))
        .send(renderQueueTicket(ticket));
    },
  );
  scope.get(
    '/events/:event_id/queue/:queue_ticket_id',
    {
      // Untraced (@fastify/otel's switch): a long poll's span would only say that it waited, and
      // every span held open costs the edge memory for each waiting fan. Its duration and status
      // are in http_server_request_duration_seconds like any route's.
      config: { otel: false },
      schema: {
        tags,
        summary: summary('Follow a queue ticket'),
        description:
          "WAITING with the position and estimated wait, ADMITTED with the admission token, SOLD_OUT or EXPIRED. Asking keeps the fan in the queue: a fan that has not asked for 90 s when its turn comes has left it. With `wait=<seconds>` (at most 25) the answer comes when the fan's rank, admission or a sell-out comes, or after that long, instead of the fan asking in a loop. 404 code 90003 for a ticket of another app or event.",
        params: TicketParams,
        querystring: WaitQuery,
        response: { 200: QueueTicket, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { event_id, queue_ticket_id } = request.params as Static<typeof TicketParams>;
      const { wait = 0 } = request.query as Static<typeof WaitQuery>;
      return renderQueueTicket(
        await longPolls.read(callerOf(request), event_id, queue_ticket_id, wait),
      );
    },
  );
}
