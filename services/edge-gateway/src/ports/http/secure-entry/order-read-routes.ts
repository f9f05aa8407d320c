import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { EntryOrder, SecureEntryBackend } from '../../../app/secure-entry.js';
import type { ApiFamily } from '../families/family.js';
import { decimalOf, distributorScope } from './common.js';

/** The order read body, exactly as the partner cart API documents it: four required strings. */
export const OrderReadBody = Type.Object(
  {
    device_id: Type.String({
      minLength: 1,
      maxLength: 50,
      description: 'Unique per device and app install (e.g. a sticky GUID)',
    }),
    device_type: Type.Union([Type.Literal('web'), Type.Literal('native')]),
    device_os: Type.Union([Type.Literal('ios'), Type.Literal('android'), Type.Literal('other')]),
    third_party_account_id: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The id sent with the billing',
    }),
  },
  { additionalProperties: false },
);

const OrderReadQuery = Type.Object({
  order_token: Type.String({
    minLength: 1,
    maxLength: 512,
    description: "The buyer's order token from the commit (a bearer credential: never logged)",
  }),
  apikey: Type.Optional(Type.String({ description: 'API key (or header x-api-key)' })),
});

const Amount = Type.Object({ amount: Type.String(), currency: Type.String() });

const SecureEntryData = Type.Object({
  token: Type.String({ description: 'Base64 secure token object; empty with `error`' }),
  render_type: Type.String({ description: 'rotating_symbology | barcode' }),
  segment_type: Type.String({ description: 'ROTATING_SYMBOLOGY | BARCODE' }),
  error: Type.Optional(
    Type.Object({
      code: Type.Integer({ description: '425 delivery delayed, 410 voided' }),
      message: Type.String(),
    }),
  ),
});

export const OrderReadAnswer = Type.Object(
  {
    customer_email: Type.String(),
    third_party_source: Type.String(),
    options: Type.Array(Type.Object({ option_number: Type.Integer(), description: Type.String() })),
    delivery: Type.Object({
      carrier: Type.String(),
      service_level: Type.String(),
      description: Type.Object({ short: Type.String() }),
    }),
    tickets: Type.Array(
      Type.Object({
        barcode_id: Type.String(),
        display_id: Type.String(),
        event_code: Type.String(),
        event_host: Type.String(),
        event_id: Type.String(),
        is_ga: Type.Boolean(),
        is_national_vip: Type.Boolean(),
        order_date: Type.String({ format: 'date-time' }),
        order_number: Type.String(),
        portal: Type.String(),
        row: Type.String(),
        seat_id: Type.String(),
        seat_name: Type.String(),
        section: Type.String(),
        voided: Type.Boolean(),
        charges: Type.Array(
          Type.Object({
            description: Type.String(),
            sub_type: Type.String(),
            type: Type.String(),
            amount: Amount,
          }),
        ),
        secure_entry_data: SecureEntryData,
      }),
    ),
    voided: Type.Boolean(),
    additional_info: Type.Object({
      delivery_delay_date: Type.Optional(
        Type.String({
          format: 'date-time',
          description: 'Delayed delivery: tokens can be read from this instant',
        }),
      ),
    }),
    device_id: Type.String(),
    device_type: Type.String(),
    device_os: Type.String(),
    nfc_capable_device: Type.Boolean(),
    third_party_account_id: Type.String(),
    send_redemption_email: Type.Boolean({
      description:
        'Whether the platform e-mails the buyer a redemption claim (never: tokens go to the partner app)',
    }),
  },
  { title: 'PartnerOrderRead' },
);

export const PartnerError = Type.Object({
  error: Type.Object({
    message: Type.String(),
    code: Type.String(),
    http_code: Type.Integer(),
    severity: Type.String(),
  }),
});

/** The order read answer in the partner cart API's field names. */
export function renderOrder(order: EntryOrder, appId: string): Static<typeof OrderReadAnswer> {
  const orderDate = order.orderedAt ?? new Date(0).toISOString();
  return {
    customer_email: order.customerEmail,
    third_party_source: appId,
    options: order.delivery.description
      ? [{ option_number: 1, description: order.delivery.description }]
      : [],
    delivery: {
      carrier: order.delivery.carrier,
      service_level: order.delivery.serviceLevel,
      description: { short: order.delivery.description },
    },
    tickets: order.tickets.map((t) => ({
      barcode_id: t.barcodeId,
      display_id: t.displayId,
      event_code: t.eventId,
      event_host: 'MARQUEE',
      event_id: t.eventId,
      is_ga: t.generalAdmission,
      is_national_vip: false,
      order_date: orderDate,
      order_number: order.orderNumber,
      portal: 'partner-cart',
      row: t.row,
      seat_id: t.partnerTicketId,
      seat_name: t.seat,
      section: t.section,
      voided: t.voided,
      charges: t.charges.map((c) => ({
        description: c.description,
        sub_type: c.subType,
        type: c.type,
        amount: { amount: decimalOf(c.amountMinor, c.currency), currency: c.currency },
      })),
      secure_entry_data: {
        token: t.token,
        render_type: t.renderType,
        segment_type: t.segmentType,
        ...(t.errorCode ? { error: { code: t.errorCode, message: t.errorMessage } } : {}),
      },
    })),
    voided: order.voided,
    additional_info: order.tokenAvailableAt ? { delivery_delay_date: order.tokenAvailableAt } : {},
    device_id: order.deviceId,
    device_type: order.deviceType,
    device_os: order.deviceOs,
    nfc_capable_device: false,
    third_party_account_id: order.thirdPartyAccountId,
    send_redemption_email: false,
  };
}

/**
 * `POST /orders?order_token&apikey` of the partner cart (`/partners/v1`, and `/partners-preprod/v1`
 * for sandbox orders): the secure-entry order read. The calling app (of the API key) goes to
 * secure-entry, which answers only the app that sold the order (404, code 90010, otherwise). The
 * first device that reads an order is bound to its tickets; every other device is refused (403,
 * code 90012).
 */
export function orderReadRoutes(backends: {
  secureEntry: SecureEntryBackend;
  developerAccess: DeveloperAccess;
}) {
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    await familyScope.register(async (scope) => {
      distributorScope(scope, family, backends.developerAccess);
      const sandbox = scope.prefix.startsWith('/partners-preprod');
      scope.post(
        '/orders',
        {
          schema: {
            tags: [family.title],
            summary: `Secure-entry order read: the tickets of an order for one device${sandbox ? ' (pre-production sandbox)' : ''}`,
            description:
              'Answers only the app that sold the order (the buyer’s app after a resale) and binds the order to the calling device on first read. Codes: 10001 no valid key, 10002 invalid input, 10003 app not approved for partner distribution, 90010 unknown order token or an order of another app (nothing is bound), 90011 third_party_account_id is not the billing one, 90012 bound to another device.',
            querystring: OrderReadQuery,
            body: OrderReadBody,
            response: {
              200: OrderReadAnswer,
              400: PartnerError,
              401: PartnerError,
              403: PartnerError,
              404: PartnerError,
              413: PartnerError,
              415: PartnerError,
              429: PartnerError,
              503: PartnerError,
              504: PartnerError,
            },
          },
        },
        async (request) => {
          const query = request.query as Static<typeof OrderReadQuery>;
          const body = request.body as Static<typeof OrderReadBody>;
          const order = await backends.secureEntry.readOrder({
            orderToken: query.order_token,
            appId: request.appId ?? '',
            deviceId: body.device_id,
            deviceType: body.device_type,
            deviceOs: body.device_os,
            thirdPartyAccountId: body.third_party_account_id,
            sandbox,
          });
          return renderOrder(order, request.appId ?? '');
        },
      );
    });
  };
}
