import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Billing, ShoppingCart, ShoppingProduct } from '@marquee/proto/cart/v1';
import { ProductChangeOp } from '@marquee/proto/cart/v1';
import type { DeveloperAccess } from '../../../app/backends.js';
import type { CommerceBackend, FanTokens } from '../../../app/commerce.js';
import { requireApiKey } from '../api-key-guard.js';
import type { ApiFamily, FamilyError } from '../families/family.js';
import { sendFamilyError } from '../families/register-family.js';
import { toMinor } from './money.js';
import {
  CartParams,
  CartResult,
  CommerceError,
  CreateCartBody,
  DeliveriesBody,
  DeliveriesResult,
  KeyHeaders,
  KeyQuery,
  OffersBody,
  OffersParams,
  OffersQuery,
  OffersResult,
  PaymentsBody,
  ProductsBody,
  PurchaseResult,
  ShoppingQuery,
  WriteHeaders,
} from './schemas.js';
import { cartResult, deliveriesResult, offersResult, purchaseResult } from './shapes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in fan, set by the commerce fan-token guard. */
    fanId?: string;
  }
}

/**
 * The status and code of each backend error kind on the commerce API. Unlike the family default,
 * `resource_exhausted` from cart means "no tickets" (409), not a quota (429, which only the key
 * guard answers). A reason in the error's details (cart's machine-readable code) becomes the code.
 */
const KIND_STATUS: Record<string, { status: number; code: string }> = {
  invalid_argument: { status: 400, code: 'invalid_request' },
  unauthenticated: { status: 401, code: 'invalid_token' },
  permission_denied: { status: 403, code: 'forbidden' },
  not_found: { status: 404, code: 'not_found' },
  already_exists: { status: 409, code: 'conflict' },
  aborted: { status: 409, code: 'conflict' },
  failed_precondition: { status: 409, code: 'invalid_cart_state' },
  resource_exhausted: { status: 409, code: 'tickets_unavailable' },
  unavailable: { status: 503, code: 'service_unavailable' },
  deadline_exceeded: { status: 504, code: 'timeout' },
};

/** A backend error as the commerce error body; undefined for anything that is not one (a bug: 500). */
export function commerceErrorOf(error: unknown): FamilyError | undefined {
  const e = error as { kind?: unknown; message?: unknown; details?: Record<string, unknown> };
  if (typeof e?.kind !== 'string') return undefined;
  const mapped = KIND_STATUS[e.kind];
  if (!mapped) return undefined;
  const reason = e.details?.reason ?? e.details?.code;
  return {
    status: mapped.status,
    code: typeof reason === 'string' && /^[\w.-]{1,64}$/.test(reason) ? reason : mapped.code,
    detail: typeof e.message === 'string' && e.message ? e.message : mapped.code,
  };
}

const FAN_TOKEN_REQUIRED: FamilyError = {
  status: 401,
  code: 'invalid_token',
  detail:
    'A valid fan access token of this app is required (access_token or X-PLATFORM-ACCESS-TOKEN)',
};
const NOT_APPROVED: FamilyError = {
  status: 403,
  code: 'access_not_approved',
  detail:
    'This app is not approved for the commerce shopping services (cart, delivery, payment, purchase)',
};
const ONLY_JSON = (format: string): FamilyError => ({
  status: 406,
  code: 'unsupported_format',
  detail: `Format "${format.slice(0, 16)}" is not served; use .json`,
});

/** Every answer a commerce route can give besides its success. */
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, CommerceError]));
const READ_ERRORS = [400, 401, 404, 406, 429, 500, 503, 504];
const SHOPPING_ERRORS = [400, 401, 403, 404, 409, 429, 500, 503, 504];
const BODY_ERRORS = [...SHOPPING_ERRORS, 413, 415];

function tokenOf(request: FastifyRequest): string | undefined {
  const query = (request.query as Record<string, unknown> | undefined)?.access_token;
  const header = request.headers['x-platform-access-token'];
  for (const raw of [query, header]) {
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

const stripFormat = (reply: FastifyReply, family: ApiFamily, format: string | undefined) => {
  if (format !== undefined && format !== 'json') {
    sendFamilyError(reply, family, ONLY_JSON(format));
    return false;
  }
  return true;
};

type ProductInput = Static<typeof CreateCartBody>['products'][number];

function toProduct(p: ProductInput): ShoppingProduct {
  return {
    product: p.product,
    eventId: p.event ?? '',
    qty: p.qty ?? 0,
    offers: (p.offers ?? []).map((o) => ({
      offer: o.offer,
      qty: o.qty,
      password: o.password ?? '',
    })),
    areaIds: p.filters?.areas ?? [],
    minPriceMinor: 0,
    maxPriceMinor: 0,
    minPrice: p.filters?.minPrice ?? '',
    maxPrice: p.filters?.maxPrice ?? '',
  };
}

/**
 * The commerce API (`/commerce/v2`): event offers for every app, cart deliveries for the cart's
 * app, and the shopping services for apps an operator approved, on behalf of a signed-in fan.
 * Every route needs an API key (`api-key` or `apikey` query, or `X-SSL-CERT-UID`), checked before
 * the request is validated so every answer, a 400 too, carries the `Rate-Limit*` headers.
 */
export function commerceRoutes(backends: {
  commerce: CommerceBackend;
  fanTokens: FanTokens;
  developerAccess: DeveloperAccess;
}) {
  const { commerce, fanTokens } = backends;
  return async (familyScope: FastifyInstance, family: ApiFamily): Promise<void> => {
    // A child scope, so the key guard covers these routes and not the family's 404/405 answers.
    await familyScope.register(async (scope) => routes(scope, family));
  };

  async function routes(scope: FastifyInstance, family: ApiFamily): Promise<void> {
    requireApiKey(scope, family, backends.developerAccess, {
      from: [
        { in: 'query', name: 'api-key' },
        { in: 'query', name: 'apikey' },
        { in: 'header', name: 'x-ssl-cert-uid' },
      ],
      rateLimitHeaders: true,
      stage: 'preValidation',
    });

    // `.{format}` other than json: 406, whatever else the request says (so before validation).
    scope.addHook('preValidation', async (request, reply) => {
      const format = (request.params as { format?: unknown } | undefined)?.format;
      if (typeof format === 'string' && format !== 'json') {
        return sendFamilyError(reply, family, ONLY_JSON(format));
      }
    });

    /** Runs a backend call; its errors become the commerce error body (anything else is a 500). */
    const run = async <T>(
      reply: FastifyReply,
      call: () => Promise<T>,
    ): Promise<T | FastifyReply> => {
      try {
        return await call();
      } catch (error) {
        const mapped = commerceErrorOf(error);
        if (!mapped) throw error;
        return sendFamilyError(reply, family, mapped);
      }
    };

    /** The fan behind the token given, when it is an active token issued to the calling app. */
    const fanOf = async (request: FastifyRequest): Promise<string | undefined> => {
      const token = tokenOf(request);
      if (token === undefined) return undefined;
      const answer = await fanTokens.introspect(token);
      if (!answer.active || answer.appId !== request.appId || !answer.fanId) return '';
      return answer.fanId;
    };
    const refuseToken = (reply: FastifyReply) => {
      void reply.header('www-authenticate', 'Bearer error="invalid_token"');
      return sendFamilyError(reply, family, FAN_TOKEN_REQUIRED);
    };

    /* ---------- offers (any app; fan token optional) ---------- */

    const offers = async (request: FastifyRequest, reply: FastifyReply) => {
      const params = request.params as Static<typeof OffersParams>;
      if (!stripFormat(reply, family, params.format)) return reply;
      const query = request.query as Static<typeof OffersQuery>;
      const body = (request.body ?? {}) as Static<typeof OffersBody>;
      const fanId = await run(reply, () => fanOf(request));
      if (typeof fanId === 'object') return fanId;
      if (fanId === '') return refuseToken(reply);
      const passwords = [query.displayId, query.password, body.displayId, body.password].filter(
        (p): p is string => typeof p === 'string' && p.length > 0,
      );
      const answer = await run(reply, () =>
        commerce.getEventOffers({
          appId: request.appId!,
          eventId: params.id,
          fanId: fanId ?? '',
          passwords: [...new Set(passwords)],
        }),
      );
      if (!('offers' in answer)) return answer;
      return reply.code(200).send(offersResult(answer));
    };
    const offersSchema = {
      tags: ['commerce'],
      summary: 'Offers of an event (prices, price zones, areas, limits, passwords)',
      description:
        'Protected offers are listed only with their password (`displayId` or `password`). `format` must be `json` (406 otherwise). A fan access token is optional; when given it must be valid (401).',
      params: OffersParams,
      querystring: OffersQuery,
      headers: KeyHeaders,
      response: { 200: OffersResult, ...errors(...READ_ERRORS) },
    };
    scope.get('/events/:id/offers', { schema: offersSchema }, offers);
    scope.get('/events/:id/offers.:format', { schema: offersSchema }, offers);
    scope.post(
      '/events/:id/offers.:format',
      {
        schema: {
          ...offersSchema,
          summary: 'Offers of an event, with a password in the body',
          body: OffersBody,
          response: { 200: OffersResult, ...errors(...READ_ERRORS, 413, 415) },
        },
      },
      offers,
    );

    /* ---------- checkout deliveries (the cart's app; no fan needed) ---------- */

    const deliveries = async (request: FastifyRequest, reply: FastifyReply) => {
      const params = request.params as Static<typeof CartParams>;
      const answer = await run(reply, () =>
        commerce.getCartDeliveries({ appId: request.appId!, cartId: params.cartId }),
      );
      if (!('deliveries' in answer)) return answer;
      return reply.code(200).send(deliveriesResult(answer.deliveries, ''));
    };
    const deliveriesSchema = {
      tags: ['commerce'],
      summary: 'Deliveries of a cart, with their options and accepted countries',
      params: CartParams,
      querystring: KeyQuery,
      headers: KeyHeaders,
      response: { 200: DeliveriesResult, ...errors(...READ_ERRORS) },
    };
    scope.get('/checkout/carts/:cartId/deliveries', { schema: deliveriesSchema }, deliveries);
    scope.get(
      '/checkout/carts/:cartId/deliveries.json',
      { schema: { ...deliveriesSchema, hide: true } },
      deliveries,
    );

    /* ---------- shopping (approved apps, signed-in fan) ---------- */

    await scope.register(async (shopping) => {
      // After the key guard (parent scope), before validation: an app without approval learns
      // nothing else, and no fan token is introspected for it.
      shopping.addHook('preValidation', async (request, reply) => {
        if (!request.appAccess?.commerceShopping) {
          return sendFamilyError(reply, family, NOT_APPROVED);
        }
        const fanId = await run(reply, () => fanOf(request));
        if (typeof fanId === 'object') return fanId;
        if (!fanId) return refuseToken(reply);
        request.fanId = fanId;
      });
      shoppingRoutes(shopping);
    });

    function shoppingRoutes(shopping: FastifyInstance): void {
      const base = {
        tags: ['commerce'],
        querystring: ShoppingQuery,
      };
      const who = (request: FastifyRequest) => ({
        appId: request.appId!,
        fanId: request.fanId!,
      });
      const idempotencyKey = (request: FastifyRequest) =>
        (request.headers['idempotency-key'] as string | undefined) ?? '';

      shopping.post(
        '/shopping/carts',
        {
          schema: {
            ...base,
            summary: 'Create a cart and reserve its products (approved apps, signed-in fan)',
            description:
              '201 with the held cart; 202 when the reservation is still running (read the cart again after `Retry-After` seconds). 409 `tickets_unavailable` when the tickets cannot be held.',
            headers: WriteHeaders,
            body: CreateCartBody,
            response: { 201: CartResult, 202: CartResult, ...errors(...BODY_ERRORS) },
          },
        },
        async (request, reply) => {
          const body = request.body as Static<typeof CreateCartBody>;
          const answer = await run(reply, () =>
            commerce.createShoppingCart({
              ...who(request),
              products: body.products.map(toProduct),
              holdTimeSeconds: body.cartHoldTimeSec ?? 0,
              pollingCallbackUrl: body.pollingCallbackUrl ?? '',
              idempotencyKey: idempotencyKey(request),
            }),
          );
          if (!('pollAfterSeconds' in answer)) return answer;
          const pending = answer.cart?.cart?.status === 'CART_STATUS_PENDING';
          const status = pending ? 202 : 201;
          if (pending) void reply.header('retry-after', String(answer.pollAfterSeconds || 1));
          const id = answer.cart?.cart?.id;
          if (id) void reply.header('location', `/commerce/v2/shopping/carts/${id}`);
          return reply.code(status).send(cartResult(answer.cart!, status));
        },
      );

      const readCart = async (request: FastifyRequest, reply: FastifyReply) => {
        const params = request.params as Static<typeof CartParams>;
        if (!stripFormat(reply, family, params.format)) return reply;
        const answer = await run(reply, () =>
          commerce.getShoppingCart({ ...who(request), cartId: params.cartId }),
        );
        if (!('pollAfterSeconds' in answer)) return answer;
        if (answer.cart?.cart?.status === 'CART_STATUS_PENDING')
          void reply.header('retry-after', String(answer.pollAfterSeconds || 1));
        return reply.code(200).send(cartResult(answer.cart!, 200));
      };
      const readSchema = {
        ...base,
        summary: 'Read a cart (the cart of this app and fan)',
        description: '`format` must be `json` (406 otherwise).',
        params: CartParams,
        headers: KeyHeaders,
        response: { 200: CartResult, ...errors(...SHOPPING_ERRORS, 406) },
      };
      shopping.get('/shopping/carts/:cartId', { schema: readSchema }, readCart);
      shopping.get('/shopping/carts/:cartId.:format', { schema: readSchema }, readCart);

      shopping.delete(
        '/shopping/carts/:cartId',
        {
          schema: {
            ...base,
            summary: 'Release a cart (idempotent)',
            params: CartParams,
            headers: KeyHeaders,
            response: {
              204: { type: 'null', description: 'Released' },
              ...errors(...SHOPPING_ERRORS),
            },
          },
        },
        async (request, reply) => {
          const params = request.params as Static<typeof CartParams>;
          const answer = await run(reply, async () => {
            await commerce.deleteShoppingCart({ ...who(request), cartId: params.cartId });
            return 'released' as const;
          });
          if (answer !== 'released') return answer;
          return reply.code(204).send();
        },
      );

      const cartAnswer = async (
        reply: FastifyReply,
        call: () => Promise<{ cart?: ShoppingCart | undefined }>,
      ) => {
        const answer = await run(reply, call);
        if (!('cart' in answer) || answer.cart === undefined) return answer;
        return reply.code(200).send(cartResult(answer.cart, 200));
      };

      shopping.patch(
        '/shopping/carts/:cartId/products',
        {
          schema: {
            ...base,
            summary:
              'Add or remove products or offers (`op: add | remove`); the cart is held again',
            params: CartParams,
            headers: WriteHeaders,
            body: ProductsBody,
            response: { 200: CartResult, ...errors(...BODY_ERRORS) },
          },
        },
        async (request, reply) => {
          const params = request.params as Static<typeof CartParams>;
          const body = request.body as Static<typeof ProductsBody>;
          return cartAnswer(reply, () =>
            commerce.updateShoppingCartProducts({
              ...who(request),
              cartId: params.cartId,
              changes: body.products.map(({ op, ...product }) => ({
                op:
                  op === 'add'
                    ? ProductChangeOp.PRODUCT_CHANGE_OP_ADD
                    : ProductChangeOp.PRODUCT_CHANGE_OP_REMOVE,
                product: toProduct(product),
              })),
              idempotencyKey: idempotencyKey(request),
            }),
          );
        },
      );

      shopping.patch(
        '/shopping/carts/:cartId/deliveries',
        {
          schema: {
            ...base,
            summary: 'Choose the delivery of a cart (an id from the deliveries result)',
            params: CartParams,
            headers: KeyHeaders,
            body: DeliveriesBody,
            response: { 200: CartResult, ...errors(...BODY_ERRORS) },
          },
        },
        async (request, reply) => {
          const params = request.params as Static<typeof CartParams>;
          const body = request.body as Static<typeof DeliveriesBody>;
          return cartAnswer(reply, () =>
            commerce.selectShoppingCartDelivery({
              ...who(request),
              cartId: params.cartId,
              deliveryId: body.deliveries[0]!.id,
            }),
          );
        },
      );

      shopping.patch(
        '/shopping/carts/:cartId/payments',
        {
          schema: {
            ...base,
            summary: 'Pay a cart (card payment nonce; the amount must be the unpaid total)',
            description:
              '409 `invalid_cart_state` (or the processor reason) when the payment is declined or the cart cannot be paid now.',
            params: CartParams,
            headers: WriteHeaders,
            body: PaymentsBody,
            response: { 200: CartResult, ...errors(...BODY_ERRORS) },
          },
        },
        async (request, reply) => {
          const params = request.params as Static<typeof CartParams>;
          const payment = (request.body as Static<typeof PaymentsBody>).payments[0]!;
          const amountMinor = toMinor(payment.amount, payment.currency);
          if (amountMinor === undefined) {
            return sendFamilyError(reply, family, {
              status: 400,
              code: 'invalid_request',
              detail: `amount ${payment.amount} has more decimals than ${payment.currency} allows`,
            });
          }
          const billing: Billing = {
            firstName: payment.firstName,
            lastName: payment.lastName,
            homePhone: payment.phone ?? '',
            type: payment.type,
            reference: payment.reference ?? '',
            address: {
              line1: payment.address?.line1 ?? '',
              line2: payment.address?.line2 ?? '',
              unit: payment.address?.unit ?? '',
              city: payment.address?.city ?? '',
              countryCode: payment.address?.country?.toUpperCase() ?? '',
              countryId: '',
              region: payment.address?.region ?? '',
              postalCode: payment.address?.postalCode ?? '',
            },
            amount: { amountMinor, currency: payment.currency },
            cardNonce: payment.token,
            cin: payment.cin ?? '',
            expireMonth: payment.expireMonth,
            expireYear: payment.expireYear,
            emailAddress: payment.email,
            thirdPartyAccountId: payment.thirdPartyAccountId ?? '',
          };
          return cartAnswer(reply, () =>
            commerce.addShoppingCartPayment({
              ...who(request),
              cartId: params.cartId,
              billing,
              idempotencyKey: idempotencyKey(request),
            }),
          );
        },
      );

      shopping.post(
        '/shopping/carts/:cartId/purchase',
        {
          schema: {
            ...base,
            summary: 'Purchase a paid cart: the order and its redemption token (shown once)',
            description:
              'A retry with the same Idempotency-Key, or of a purchased cart, answers the same order and token.',
            params: CartParams,
            headers: WriteHeaders,
            response: { 200: PurchaseResult, ...errors(...BODY_ERRORS) },
          },
        },
        async (request, reply) => {
          const params = request.params as Static<typeof CartParams>;
          const answer = await run(reply, () =>
            commerce.purchaseShoppingCart({
              ...who(request),
              cartId: params.cartId,
              idempotencyKey: idempotencyKey(request),
            }),
          );
          if (!('redemptionToken' in answer)) return answer;
          // The token is a bearer credential: never cached by anything between here and the app.
          void reply.header('cache-control', 'no-store');
          return reply.code(200).send(
            purchaseResult({
              cart: answer.cart,
              order: answer.order,
              redemptionToken: answer.redemptionToken,
              ticketCount: answer.ticketCount,
            }),
          );
        },
      );
    }
  }
}
