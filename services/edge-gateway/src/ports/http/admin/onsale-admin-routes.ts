import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { OnSaleRecord, WaitingRoomBackend } from '../../../app/waiting-room.js';
import { AdminError, AdminId, OptionalDateTime } from './admin-schemas.js';

const security = [{ adminToken: [] }];

const OnSaleBody = Type.Object(
  {
    opensAt: Type.String({ format: 'date-time', description: 'When the on-sale opens' }),
    queue: Type.Boolean({
      description:
        'Fans queue, and reserves need an admission, while true; false turns the waiting room off (reserves go straight on)',
    }),
  },
  { additionalProperties: false },
);

const OnSale = Type.Object({
  eventId: Type.String(),
  opensAt: Type.String({ format: 'date-time' }),
  queue: Type.Boolean(),
  frozenAt: {
    ...OptionalDateTime,
    description: 'When the early joiners were ordered at random (the opening, plus a short grace)',
  },
  earlyCount: Type.Integer({ description: 'Fans who joined before the opening' }),
  admittedThrough: Type.Integer({ description: 'Fans admitted so far, by rank' }),
  soldOutAt: {
    ...OptionalDateTime,
    description: 'When the event sold out; absent while places remain',
  },
});

const Params = Type.Object({ eventId: AdminId });

/**
 * The instant of an RFC 3339 date-time. A leap second (`23:59:60`, valid RFC 3339, which a
 * JavaScript Date cannot hold) is taken as the start of the next second, as clocks that smear or
 * step it read it.
 */
export function instantOf(value: string): Date {
  const parsed = new Date(value);
  if (!Number.isNaN(parsed.getTime())) return parsed;
  const beforeLeap = new Date(value.replace(/(T\d{2}:\d{2}):60/, '$1:59'));
  return new Date(beforeLeap.getTime() + 1000);
}

const render = (o: OnSaleRecord): Static<typeof OnSale> => ({
  eventId: o.eventId,
  opensAt: o.opensAt.toISOString(),
  queue: o.queue,
  ...(o.frozenAt ? { frozenAt: o.frozenAt.toISOString() } : {}),
  earlyCount: o.earlyCount,
  admittedThrough: o.admittedThrough,
  ...(o.soldOutAt ? { soldOutAt: o.soldOutAt.toISOString() } : {}),
});

/** PUT /events/{eventId}/onsale: an event's on-sale and its waiting room (cart). */
export function onSaleAdminRoutes(backends: { waitingRoom: WaitingRoomBackend }) {
  return async (scope: FastifyInstance): Promise<void> => {
    scope.put(
      '/events/:eventId/onsale',
      {
        schema: {
          tags: ['admin'],
          summary: "Set an event's on-sale opening and turn its waiting room on or off",
          description:
            'While `queue` is true, partner apps join fans with `POST /partners/v1/events/{event_id}/queue` and every reserve of the event needs an admission (403 code 20070 without one). The opening may move until the early joiners were ordered at it (409 after that).',
          security,
          params: Params,
          body: OnSaleBody,
          response: {
            200: Type.Object({ onSale: OnSale }),
            400: AdminError,
            401: AdminError,
            409: AdminError,
            503: AdminError,
            504: AdminError,
          },
        },
      },
      async (request) => {
        const { eventId } = request.params as Static<typeof Params>;
        const body = request.body as Static<typeof OnSaleBody>;
        const opensAt = instantOf(body.opensAt);
        const onSale = await backends.waitingRoom.configure(eventId, {
          opensAt,
          queue: body.queue,
        });
        return { onSale: render(onSale) };
      },
    );
  };
}
