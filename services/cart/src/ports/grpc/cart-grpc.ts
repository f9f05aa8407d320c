import {
  RECORDED_ERROR_KINDS,
  type ClaimedOutcome,
  type Idempotency,
} from '@marquee/platform/idempotency';
import { callerOf, unary } from '@marquee/platform/grpc';
import type { GrpcRegistration } from '@marquee/platform/service';
import {
  AddPaymentRequest,
  AddPaymentResponse,
  CartServiceService,
  CommitCartRequest,
  CommitCartResponse,
  PrintAction,
  ReserveCartRequest,
  type ReserveCartResponse,
  type CartServiceServer,
  type GetOrderRequest,
  type GetOrderResponse,
  type PrintOrderResponse,
} from '@marquee/proto/cart/v1';
import { cancelReasonFromProto, orderTickets } from '../../adapters/messages.js';
import type { BillingInput, CartApp, CartOwner, ReserveInput } from '../../app/index.js';
import { OPEN_GATE, type ReserveGate } from '../../app/ports.js';
import { invalidInput } from '../../domain/errors.js';
import { gatedReserve } from './reserve-gate.js';
import type { Order } from '../../domain/order.js';
import {
  availabilityMessage,
  cartMessage,
  cartOrderMessage,
  shippingOptionMessage,
} from './cart-messages.js';
import { requestBytes } from './request-bytes.js';

type Handlers<K extends keyof CartServiceServer> = Pick<CartServiceServer, K>;

/** The partner cart's caller: an app, on the sandbox prefix or not. */
const partnerOwner = (r: { appId: string; sandbox: boolean }): CartOwner => ({
  appId: r.appId,
  sandbox: r.sandbox,
  channel: 'partner-cart',
});

/** An order as GetOrder (and PrintOrder) answer it. */
const orderAnswer = (app: CartApp, order: Order): GetOrderResponse => ({
  order: cartOrderMessage(order, app.redemptionUrl(order)),
  eventId: order.eventId,
  cartId: order.cartId,
  tickets: orderTickets(order),
  fanId: '',
});

/** PRINT when not given (as the admin API defaults it); an unknown value is refused. */
function printActionFromProto(action: PrintAction): 'PRINT' | 'ROLLBACK_PRINT' {
  switch (action) {
    case PrintAction.PRINT_ACTION_UNSPECIFIED:
    case PrintAction.PRINT_ACTION_PRINT:
      return 'PRINT';
    case PrintAction.PRINT_ACTION_ROLLBACK_PRINT:
      return 'ROLLBACK_PRINT';
    default:
      throw invalidInput('action must be PRINT or ROLLBACK_PRINT', 'action');
  }
}

/** A ReserveCart request as the reserve use case's input; variable prices are refused. */
function reserveInputOf(r: ReserveCartRequest): ReserveInput {
  return {
    owner: {
      ...partnerOwner(r),
      channel: 'partner-cart',
      ...(r.heldTicketsPerEvent !== undefined
        ? { heldTicketsPerEvent: r.heldTicketsPerEvent }
        : {}),
    },
    eventId: r.eventId,
    language: r.language,
    forceAsync: r.forceAsync,
    fanSessionId: r.fanSessionId,
    requests: r.reserves.map((reserve) => ({
      tickets: reserve.tickets.map((t) => {
        if (t.amount && t.amount.amountMinor > 0)
          throw invalidInput('variable prices are not offered', 'price.amount');
        return {
          priceTypeId: t.id,
          quantity: t.quantity,
          ...(t.priceId ? { priceLevelId: t.priceId } : {}),
        };
      }),
      areaIds: reserve.areaIds,
      section: reserve.section,
      row: reserve.row,
      beginSeat: reserve.beginSeat,
      endSeat: reserve.endSeat,
      acceptBestAvailable: reserve.acceptBestAvailable,
    })),
  };
}

/**
 * ReserveCart. A reserve takes its place (CART_MAX_RESERVES_IN_FLIGHT) before it touches the store,
 * so a burst reaches the store only as far as it can be served: with none free it waits a short
 * while in line for one (CART_RESERVE_QUEUE_WAIT_MS, at most CART_RESERVE_QUEUE_MAX waiting), and
 * past that is refused, `overloaded` (429 with Retry-After at the edge), without a read or a
 * write. A new key is also refused while the sold-out book covers it (a retry of a reserve that
 * already ran still gets its cart); that refusal needs no place, and a request
 * waiting in line is checked against the book as soon as the event gets an entry in it. The place
 * is given back at the call's end.
 */
function reserveCart(
  app: CartApp,
  idempotency: Idempotency,
  gate: ReserveGate,
): Handlers<'reserveCart'> {
  return {
    reserveCart: unary(async (r: ReserveCartRequest, call) => {
      const input = reserveInputOf(r);
      const arrived = Date.now();
      // While the sold-out book has an entry of the event, the place is taken only once the key
      // turned out new and not sold out: a burst of fans told "sold out" (one key read each) does
      // not take the places of the reserves that still reach the partner.
      let release: (() => void) | undefined;
      let soldOutHinted = app.soldOutHinted(input.eventId);
      if (!soldOutHinted) {
        release = await app.awaitReserveSlot(input.eventId, call.deadlineMs);
        soldOutHinted = release === undefined; // left the line for the book
      }
      // A book check (its key read) takes a turn of its own, given back once the reserve goes on.
      let check = soldOutHinted ? await app.awaitBookCheck(call.deadlineMs) : undefined;
      const admit = async () => {
        check?.();
        check = undefined;
        while (release === undefined) {
          release = await app.awaitReserveSlot(input.eventId, call.deadlineMs);
          if (release === undefined) app.refuseIfJustSoldOut(input);
        }
      };
      try {
        // The key is claimed by the cart's own insert (its id derived from the key, the request's
        // digest kept on it): a retry is answered from the cart as it is now.
        return await idempotency.runClaimed(
          {
            scope: r.appId,
            key: r.idempotencyKey,
            request: requestBytes(
              'ReserveCart',
              ReserveCartRequest.encode({
                ...r,
                idempotencyKey: '',
                // The quota is the app's setting, not the request: a retry after an operator
                // changed it is still the same request.
                heldTicketsPerEvent: undefined,
              }).finish(),
            ),
          },
          async (claim): Promise<ReserveCartResponse> => {
            await admit(); // not taken yet while the sold-out book had an entry of the event
            const waitedMs = Date.now() - arrived;
            const view = await gatedReserve(gate, r, () =>
              app.reserve({ ...input, waitedMs, ...(claim ? { claim } : {}) }),
            );
            return { cart: cartMessage(view, app), pollAfterSeconds: view.pollAfterSeconds };
          },
          {
            find: async (claim) => {
              const made = await app.claimedReserve(r.appId, claim.id);
              return made && claimedAnswer(made, app);
            },
            // Only while the sold-out book has an entry of the event: it makes the helper read the
            // key's cart before the reserve runs.
            ...(soldOutHinted ? { refuseNew: () => app.refuseIfJustSoldOut(input) } : {}),
            // A waiting room's admission is spent by the reserve: its retry is answered first.
            readFirst: Boolean(r.admissionToken || r.queueFanId),
          },
        );
      } finally {
        release?.();
        check?.();
      }
    }),
  };
}

/**
 * A retry's answer from the cart its key's reserve made: the cart as it is now, or the failure it
 * ended in. A failure that says nothing about the request (the partner did not answer) lets the
 * retry reserve again, under the key's next claim.
 */
function claimedAnswer(
  made: NonNullable<Awaited<ReturnType<CartApp['claimedReserve']>>>,
  app: CartApp,
): ClaimedOutcome<ReserveCartResponse> {
  const { failure, view } = made;
  return {
    requestHash: made.requestDigest,
    runAgain: failure !== undefined && !RECORDED_ERROR_KINDS.includes(failure.kind),
    answer: () => {
      if (failure) throw failure;
      return { cart: cartMessage(view, app), pollAfterSeconds: view.pollAfterSeconds };
    },
  };
}

/** An AddPayment request's billing as the use case's input (absent fields empty, amount -1). */
function billingOf(b: AddPaymentRequest['billing']): BillingInput {
  return {
    firstName: b?.firstName ?? '',
    lastName: b?.lastName ?? '',
    email: b?.emailAddress ?? '',
    type: b?.type ?? '',
    reference: b?.reference ?? '',
    countryCode: b?.address?.countryCode ?? '',
    amountMinor: Number(b?.amount?.amountMinor ?? -1),
    currency: b?.amount?.currency ?? '',
    cardNonce: b?.cardNonce ?? '',
    cin: b?.cin ?? '',
    expireMonth: b?.expireMonth ?? 0,
    expireYear: b?.expireYear ?? 0,
    thirdPartyAccountId: b?.thirdPartyAccountId ?? '',
  };
}

/** AddPayment and CommitCart: the idempotent writes after a hold. */
function paymentAndCommit(
  app: CartApp,
  idempotency: Idempotency,
): Handlers<'addPayment' | 'commitCart'> {
  return {
    addPayment: unary((r: AddPaymentRequest) =>
      idempotency.run(
        {
          scope: r.appId,
          key: r.idempotencyKey,
          request: requestBytes(
            'AddPayment',
            AddPaymentRequest.encode({
              ...r,
              idempotencyKey: '',
              // Card verification data is never digested (idempotency README, "What is kept").
              billing: r.billing ? { ...r.billing, cin: '' } : undefined,
            }).finish(),
          ),
          encode: (res) => AddPaymentResponse.encode(res).finish(),
          decode: (bytes) => AddPaymentResponse.decode(bytes),
        },
        async (): Promise<AddPaymentResponse> => {
          const view = await app.addPayment(
            partnerOwner(r),
            r.cartId,
            billingOf(r.billing),
            r.eventId,
          );
          return { cart: cartMessage(view, app) };
        },
      ),
    ),
    commitCart: unary((r: CommitCartRequest) =>
      idempotency.run(
        {
          scope: r.appId,
          key: r.idempotencyKey,
          request: requestBytes(
            'CommitCart',
            CommitCartRequest.encode({ ...r, idempotencyKey: '' }).finish(),
          ),
          encode: (res) => CommitCartResponse.encode(res).finish(),
          decode: (bytes) => CommitCartResponse.decode(bytes),
        },
        async (): Promise<CommitCartResponse> => {
          const result = await app.commit(partnerOwner(r), r.cartId, r.eventId);
          return {
            cart: cartMessage(result.view, app),
            order: cartOrderMessage(result.order, app.redemptionUrl(result.order)),
            orderToken: result.orderToken,
          };
        },
      ),
    ),
  };
}

/** The reads and plain writes of a cart: availability, the cart, shipping, release, tracking. */
function cartReads(
  app: CartApp,
): Handlers<
  | 'getEventAvailability'
  | 'getCart'
  | 'getShippingOptions'
  | 'selectShipping'
  | 'releaseCart'
  | 'recordTracking'
> {
  return {
    getEventAvailability: unary(async (r) =>
      availabilityMessage(await app.availability({ eventId: r.eventId, sandbox: r.sandbox })),
    ),
    getCart: unary(async (r) => {
      const view = await app.get(partnerOwner(r), r.cartId, r.eventId);
      return { cart: cartMessage(view, app), pollAfterSeconds: view.pollAfterSeconds };
    }),
    getShippingOptions: unary(async (r) => {
      const view = await app.get(partnerOwner(r), r.cartId, r.eventId);
      const options = await app.shippingOptions(partnerOwner(r), r.cartId, r.region, r.eventId);
      return { options: options.map((o) => shippingOptionMessage(o, view.cart.currency)) };
    }),
    selectShipping: unary(async (r) => ({
      cart: cartMessage(
        await app.selectShipping(partnerOwner(r), r.cartId, r.shippingId, r.eventId),
        app,
      ),
    })),
    releaseCart: unary(async (r) => {
      await app.release(partnerOwner(r), r.cartId, r.eventId);
      return {};
    }),
    recordTracking: unary(async (r) => {
      await app.recordTracking({
        appId: r.appId,
        eventId: r.eventId,
        sharedId: r.sharedId,
        subIds: [r.subId1, r.subId2, r.subId3],
        sandbox: r.sandbox,
      });
      return {};
    }),
  };
}

/** The order operations of the admin API and secure-entry: cancel, read, print. */
function orders(app: CartApp): Handlers<'cancelOrder' | 'getOrder' | 'printOrder'> {
  return {
    cancelOrder: unary(async (r) => {
      const { order, partnerCancelQueued } = await app.cancelOrder(
        r.orderId,
        cancelReasonFromProto(r.reason),
        r.detail,
        r.ticketIds ?? [],
      );
      return {
        order: cartOrderMessage(order, app.redemptionUrl(order)),
        partnerCancelQueued,
        tickets: orderTickets(order),
      };
    }),
    getOrder: (call, callback) => {
      // The fan id goes to secure-entry alone (its backfill); no other caller needs it.
      const fanIdWanted = callerOf(call) === 'secure-entry';
      unary(async (r: GetOrderRequest): Promise<GetOrderResponse> => {
        const order = await app.getOrder(r.orderId, r.appId || undefined);
        return {
          ...orderAnswer(app, order),
          fanId: fanIdWanted ? (order.fanId ?? '') : '',
          ...(order.contactErasedAt ? { contactErasedAt: order.contactErasedAt } : {}),
        };
      })(call, callback);
    },
    printOrder: unary(async (r): Promise<PrintOrderResponse> =>
      orderAnswer(app, await app.printOrder(r.orderId, printActionFromProto(r.action))),
    ),
  };
}

/** HandleStripeEvent: a webhook event the edge verified, its object as JSON. */
function stripeEvents(app: CartApp): Handlers<'handleStripeEvent'> {
  return {
    handleStripeEvent: unary(async (r) => {
      let object: unknown;
      try {
        object = JSON.parse(r.objectJson);
      } catch {
        throw invalidInput('object_json must be JSON', 'object_json');
      }
      if (typeof object !== 'object' || object === null || Array.isArray(object))
        throw invalidInput('object_json must be a JSON object', 'object_json');
      const outcome = await app.handleStripeEvent({
        eventId: r.eventId,
        type: r.type,
        object: object as Record<string, unknown>,
      });
      return { duplicate: outcome === 'duplicate', outcome };
    }),
  };
}

/** `marquee.cart.v1.CartService`: maps messages, applies idempotency keys, delegates to the app. */
export function cartGrpc(
  app: CartApp,
  idempotency: Idempotency,
  gate: ReserveGate = OPEN_GATE,
): GrpcRegistration {
  const implementation: CartServiceServer = {
    ...cartReads(app),
    ...reserveCart(app, idempotency, gate),
    ...paymentAndCommit(app, idempotency),
    ...orders(app),
    ...stripeEvents(app),
  };
  return { definition: CartServiceService, implementation };
}
