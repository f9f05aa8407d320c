import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { SecureEntryBackend } from '../../../app/secure-entry.js';
import type { ApiFamily } from '../families/family.js';
import { anyCase } from '../patterns.js';
import { distributorScope, InvalidInput } from './common.js';
import { PartnerError } from './order-read-routes.js';

// Ticket attributes are optional in the schema on purpose: a missing one is a per-ticket error of
// the 400 answer (`missing.row.attribute`), not a refusal of the whole request.
const RequestedTicket = Type.Object(
  {
    eventId: Type.Optional(Type.String({ maxLength: 64 })),
    section: Type.Optional(Type.String({ maxLength: 100 })),
    row: Type.Optional(Type.String({ maxLength: 100 })),
    seat: Type.Optional(Type.String({ maxLength: 100 })),
    barcode: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const SecureRenderBody = Type.Object(
  {
    deviceId: Type.String({ minLength: 1, maxLength: 50 }),
    deviceType: Type.String({
      pattern: `^(?:${anyCase('web')}|${anyCase('native')})$`,
      description: 'WEB | NATIVE (any case)',
    }),
    deviceOs: Type.String({
      pattern: `^(?:${anyCase('ios')}|${anyCase('android')}|${anyCase('other')})$`,
      description: 'IOS | ANDROID | OTHER (any case)',
    }),
    userAgent: Type.String({ maxLength: 512 }),
    tickets: Type.Array(RequestedTicket, { minItems: 1, maxItems: 50 }),
  },
  { additionalProperties: false },
);

const Headers = Type.Object({
  'x-user-id': Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'The third_party_account_id given with the billing',
  }),
});

const RenderedTicket = Type.Object({
  eventId: Type.String(),
  section: Type.String(),
  row: Type.String(),
  seat: Type.String(),
  barcode: Type.String(),
  token: Type.Optional(Type.String({ description: 'New Base64 secure token' })),
  renderType: Type.Optional(Type.String({ description: 'rotating_symbology | barcode' })),
  passData: Type.Optional(
    Type.Object({
      ios: Type.Object({
        pkPassId: Type.String({
          description:
            "The ticket's Apple Wallet pass id: stable per ticket (the same on every render), new for a ticket reissued to a resale buyer",
        }),
      }),
    }),
  ),
  error: Type.Optional(
    Type.Object({
      code: Type.Integer({
        description:
          '400 missing/invalid attribute, 403 not the owner or device, 404 unknown, 409 mismatch, 410 voided, 425 delayed',
      }),
      error: Type.String({ description: 'e.g. missing.row.attribute' }),
    }),
  ),
});

export const SecureRenderAnswer = Type.Object({
  deviceId: Type.String(),
  deviceType: Type.String(),
  deviceOs: Type.String(),
  nfcCapableDevice: Type.Boolean(),
  tickets: Type.Array(RenderedTicket),
});

const DEVICE_TYPES = new Set(['web', 'native']);
const DEVICE_OSES = new Set(['ios', 'android', 'other']);

/**
 * `POST /securerender` under `/marketplace/v1` (and `/marketplace-staging/v1` for sandbox orders):
 * a new token for each named ticket. 200 when every ticket rendered; 400 with the same envelope
 * when any did not, the failing tickets carrying `error {code, error}`.
 */
export function secureRenderRoutes(backends: {
  secureEntry: SecureEntryBackend;
  developerAccess: DeveloperAccess;
}) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    await familyScope.register(async (scope) => {
      distributorScope(scope, family, backends.developerAccess);
      const sandbox = scope.prefix.startsWith('/marketplace-staging');
      scope.post(
        '/securerender',
        {
          schema: {
            tags: [family.title],
            summary: `A new secure-entry token for each ticket${sandbox ? ' (staging: sandbox orders)' : ''}`,
            description:
              'The numeric barcode stays the same, the token changes. Call it 20 hours before the event and whenever the ticket is shown.',
            headers: Headers,
            body: SecureRenderBody,
            response: {
              200: SecureRenderAnswer,
              400: Type.Union([SecureRenderAnswer, PartnerError]),
              401: PartnerError,
              403: PartnerError,
              413: PartnerError,
              415: PartnerError,
              429: PartnerError,
              503: PartnerError,
              504: PartnerError,
            },
          },
        },
        async (request, reply) => {
          const body = request.body as Static<typeof SecureRenderBody>;
          const userId = (request.headers as Static<typeof Headers>)['x-user-id'];
          const deviceType = body.deviceType.toLowerCase();
          const deviceOs = body.deviceOs.toLowerCase();
          if (!DEVICE_TYPES.has(deviceType))
            throw new InvalidInput('deviceType must be WEB or NATIVE');
          if (!DEVICE_OSES.has(deviceOs))
            throw new InvalidInput('deviceOs must be IOS, ANDROID or OTHER');
          const rendered = await backends.secureEntry.secureRender({
            appId: request.appId ?? '',
            userId,
            deviceId: body.deviceId,
            deviceType,
            deviceOs,
            userAgent: body.userAgent,
            sandbox,
            tickets: body.tickets.map((t) => ({
              eventId: t.eventId ?? '',
              section: t.section ?? '',
              row: t.row ?? '',
              seat: t.seat ?? '',
              barcode: t.barcode ?? '',
            })),
          });
          const failed = rendered.some((t) => t.errorCode !== 0);
          return reply.code(failed ? 400 : 200).send({
            deviceId: body.deviceId,
            deviceType: body.deviceType,
            deviceOs: body.deviceOs,
            nfcCapableDevice: false,
            tickets: rendered.map((t) => ({
              ...t.ticket,
              ...(t.errorCode
                ? { error: { code: t.errorCode, error: t.error } }
                : {
                    token: t.token,
                    renderType: t.renderType,
                    passData: { ios: { pkPassId: t.pkPassId } },
                  }),
            })),
          });
        },
      );
    });
  };
}
