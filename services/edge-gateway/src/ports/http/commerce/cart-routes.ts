import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Billing, ShoppingCart, ShoppingProduct } from '@marquee/proto/cart/v1';
import { ProductChangeOp } from '@marquee/proto/cart/v1';
import { CART_EXAMPLE } from './examples.js';
import { wasAnswered } from '../families/backend-call.js';
import type { FamilyError } from '../families/family.js';
import { sendFamilyError } from '../families/register-family.js';
import { toMinor } from './money.js';
import { BODY_ERRORS, SHOPPING_ERRORS, errors, type CommerceRoutesContext } from './context.js';
import {
  CartParams,
  CartResult,
  CommercePaymentConflict,
  CreateCartBody,
  DeliveriesBody,
  KeyHeaders,
  PaymentsBody,
  ProductsBody,
  PurchaseResult,
  ShoppingQuery,
  WriteHeaders,
} from './schemas.js';
import { cartResult, purchaseResult } from './shapes.js';

/** `Location` of a created cart: the path that reads it. */
const CART_LOCATION = {
  type: 'string',
  description: 'The path of the cart (`/commerce/v2/shopping/carts/{cartId}`)',
};

const NOT_APPROVED: FamilyError = {
  status: 403,
  code: 'access_not_approved',
  detail:
    'This app is not approved for the commerce shopping services (cart, delivery, payment, purchase)',
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

/** What every shopping route's schema starts with. */
const base = {
  tags: ['commerce'],
  querystring: ShoppingQuery,
};

const who = (request: FastifyRequest) => ({
  appId: request.appId!,
  fanId: request.fanId!,
});

// The app's held-ticket quota, as the key guard read it: the cart holds within it.
const quota = (request: FastifyRequest) =>
  request.heldTicketsPerEvent !== undefined
    ? { heldTicketsPerEvent: request.heldTicketsPerEvent }
    : {};

const idempotencyKey = (request: FastifyRequest) =>
  (request.headers['idempotency-key'] as string | undefined) ?? '';

/** 200 with the cart a change answered (or the refusal of the change). */
async function cartAnswer(
  run: CommerceRoutesContext['run'],
  reply: FastifyReply,
  call: () => Promise<{ cart?: ShoppingCart | undefined }>,
) {
  const answer = await run(reply, call);
  if (wasAnswered(answer)) return reply;
  // cart answers every change with the cart; without one it is a defect (500), not a result.
  if (answer.cart === undefined) throw new Error('cart answered a change without the cart');
  return reply.code(200).send(cartResult(answer.cart, 200));
}

type PaymentInput = Static<typeof PaymentsBody>['payments'][number];

/** A payment of the request → cart's billing, with its amount in minor units. */
function toBilling(payment: PaymentInput, amountMinor: number): Billing {
  return {
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
}

/**
 * The shopping carts (`/shopping/carts/...`): create, read, release, products, delivery, payment
 * and purchase, for apps an operator approved and on behalf of a signed-in fan. They live in a
 * scope of their own whose guard refuses an app without approval (403) before its fan token is
 * introspected, then requires the fan token (401).
 */
export async function cartRoutes(
  scope: FastifyInstance,
  context: CommerceRoutesContext,
): Promise<void> {
  await scope.register(async (shopping) => {
    // After the key guard (parent scope), before validation: an app without approval learns
    // nothing else, and no fan token is introspected for it.
    shopping.addHook('preValidation', async (request, reply) => {
      if (!request.appAccess?.commerceShopping) {
        return sendFamilyError(reply, context.family, NOT_APPROVED);
      }
      const fanId = await context.run(reply, () => context.fanOf(request));
      if (wasAnswered(fanId)) return reply;
      if (!fanId) return context.refuseToken(reply);
      request.fanId = fanId;
    });
    shoppingRoutes(shopping, context);
  });
}

function shoppingRoutes(shopping: FastifyInstance, context: CommerceRoutesContext): void {
  createCartRoute(shopping, context);
  readCartRoutes(shopping, context);
  releaseCartRoute(shopping, context);
  productsRoute(shopping, context);
  deliveriesRoute(shopping, context);
  paymentsRoute(shopping, context);
  purchaseRoute(shopping, context);
}

/** POST /shopping/carts: creates a cart and reserves its products. */
function createCartRoute(shopping: FastifyInstance, context: CommerceRoutesContext): void {
  const { commerce, run } = context;
  shopping.post(
    '/shopping/carts',
    {
      schema: {
        ...base,
        summary: 'Create a cart and reserve its products (approved apps, signed-in fan)',
        description:
          '201 with the held cart; 202 when the reservation is still running (read the cart again after `Retry-After` seconds). 409 `tickets_unavailable` when the tickets cannot be held, `20060` when the app already holds its held-ticket quota for the event.',
        headers: WriteHeaders,
        body: CreateCartBody,
        response: {
          201: { ...CartResult, headers: { location: CART_LOCATION }, examples: [CART_EXAMPLE] },
          202: {
            ...CartResult,
            headers: {
              location: CART_LOCATION,
              'retry-after': {
                type: 'integer',
                minimum: 1,
                description: 'Whole seconds to wait before reading the cart again',
              },
            },
          },
          ...errors(...BODY_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateCartBody>;
      const answer = await run(reply, () =>
        commerce.createShoppingCart({
          ...who(request),
          ...quota(request),
          products: body.products.map(toProduct),
          holdTimeSeconds: body.cartHoldTimeSec ?? 0,
          pollingCallbackUrl: body.pollingCallbackUrl ?? '',
          idempotencyKey: idempotencyKey(request),
        }),
      );
      if (wasAnswered(answer)) return reply;
      const pending = answer.cart?.cart?.status === 'CART_STATUS_PENDING';
      const status = pending ? 202 : 201;
      if (pending) void reply.header('retry-after', String(answer.pollAfterSeconds || 1));
      const id = answer.cart?.cart?.id;
      if (id) void reply.header('location', `/commerce/v2/shopping/carts/${id}`);
      return reply.code(status).send(cartResult(answer.cart!, status));
    },
  );
}

/** GET /shopping/carts/:cartId (and with `.json`): reads a cart. */
function readCartRoutes(shopping: FastifyInstance, context: CommerceRoutesContext): void {
  const { commerce, run } = context;
  const readCart = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as Static<typeof CartParams>;
    if (!context.acceptsFormat(reply, params.format)) return reply;
    const answer = await run(reply, () =>
      commerce.getShoppingCart({ ...who(request), cartId: params.cartId }),
    );
    if (wasAnswered(answer)) return reply;
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
}

/** DELETE /shopping/carts/:cartId: releases a cart. */
function releaseCartRoute(shopping: FastifyInstance, context: CommerceRoutesContext): void {
  const { commerce, run } = context;
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
      const answer = await run(reply, () =>
        commerce.deleteShoppingCart({ ...who(request), cartId: params.cartId }),
      );
      if (wasAnswered(answer)) return reply;
      return reply.code(204).send();
    },
  );
}

/** PATCH /shopping/carts/:cartId/products: adds or removes products or offers. */
function productsRoute(shopping: FastifyInstance, context: CommerceRoutesContext): void {
  const { commerce, run } = context;
  shopping.patch(
    '/shopping/carts/:cartId/products',
    {
      schema: {
        ...base,
        summary: 'Add or remove products or offers (`op: add | remove`); the cart is held again',
        params: CartParams,
        headers: WriteHeaders,
        body: ProductsBody,
        response: { 200: CartResult, ...errors(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      const params = request.params as Static<typeof CartParams>;
      const body = request.body as Static<typeof ProductsBody>;
      return cartAnswer(run, reply, () =>
        commerce.updateShoppingCartProducts({
          ...who(request),
          ...quota(request),
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
}

/** PATCH /shopping/carts/:cartId/deliveries: chooses the delivery. */
function deliveriesRoute(shopping: FastifyInstance, context: CommerceRoutesContext): void {
  const { commerce, run } = context;
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
      return cartAnswer(run, reply, () =>
        commerce.selectShoppingCartDelivery({
          ...who(request),
          cartId: params.cartId,
          deliveryId: body.deliveries[0]!.id,
        }),
      );
    },
  );
}

/** PATCH /shopping/carts/:cartId/payments: pays a cart. */
function paymentsRoute(shopping: FastifyInstance, context: CommerceRoutesContext): void {
  const { commerce, family, run } = context;
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
        response: { 200: CartResult, ...errors(...BODY_ERRORS), 409: CommercePaymentConflict },
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
          detail: `amount ${payment.amount} is not an amount in ${payment.currency} (an ISO 4217 currency, with no more decimals than it has)`,
        });
      }
      const billing = toBilling(payment, amountMinor);
      return cartAnswer(run, reply, () =>
        commerce.addShoppingCartPayment({
          ...who(request),
          cartId: params.cartId,
          billing,
          idempotencyKey: idempotencyKey(request),
        }),
      );
    },
  );
}

/** POST /shopping/carts/:cartId/purchase: purchases a paid cart. */
function purchaseRoute(shopping: FastifyInstance, context: CommerceRoutesContext): void {
  const { commerce, run } = context;
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
      if (wasAnswered(answer)) return reply;
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
