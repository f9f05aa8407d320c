import type { Idempotency } from '@marquee/platform/idempotency';
import { callerOf, unary } from '@marquee/platform/grpc';
import type { GrpcRegistration } from '@marquee/platform/service';
import {
  AddPaymentRequest,
  AddPaymentResponse,
  CartServiceService,
  CartStatus,
  CommitCartRequest,
  CommitCartResponse,
  OrderStatus,
  PrintAction,
  ReserveCartRequest,
  ReserveCartResponse,
  type Cart as ProtoCart,
  type CartOrder,
  type CartServiceServer,
  type Charge as ProtoCharge,
  type GetOrderRequest,
  type GetOrderResponse,
  type PrintOrderResponse,
  type LineTotals,
  type ShippingOption as ProtoShippingOption,
} from '@marquee/proto/cart/v1';
import {
  cancelReasonFromProto,
  orderPaymentMessage,
  orderTickets,
} from '../../adapters/messages.js';
import type { CartApp, CartOwner, CartView, ReserveInput } from '../../app/index.js';
import { invalidInput } from '../../domain/errors.js';
import type { Charge, Totals } from '../../domain/pricing.js';
import type { ShippingOption } from '../../domain/shipping.js';
import type { Order } from '../../domain/order.js';
import { inventoryTypeOf } from '../../top-picks/ports/inventory-type.js';

const STATUS: Record<string, CartStatus> = {
  PENDING: CartStatus.CART_STATUS_PENDING,
  HELD: CartStatus.CART_STATUS_HELD,
  PAID: CartStatus.CART_STATUS_PAID,
  COMMITTED: CartStatus.CART_STATUS_COMMITTED,
  RELEASED: CartStatus.CART_STATUS_RELEASED,
  EXPIRED: CartStatus.CART_STATUS_EXPIRED,
  FAILED: CartStatus.CART_STATUS_FAILED,
};

const money = (amountMinor: number, currency: string) => ({ amountMinor, currency });

const lineTotals = (t: Totals, currency: string): LineTotals => ({
  merchandise: money(t.merchandise, currency),
  fee: money(t.fee, currency),
  tax: money(t.tax, currency),
  grand: money(t.grand, currency),
});

const charge = (c: Charge, currency: string): ProtoCharge => ({
  type: c.type,
  price: money(c.priceMinor, currency),
  quantity: c.quantity,
  tax: money(c.taxMinor, currency),
  feeType: c.feeType,
});

export function shippingOptionMessage(o: ShippingOption, currency: string): ProtoShippingOption {
  return {
    id: o.id,
    carrier: o.carrier,
    serviceLevel: o.serviceLevel,
    requiresAddress: o.requiresAddress,
    descriptionLong: o.descriptionLong,
    descriptionShort: o.descriptionShort,
    eta: o.eta,
    totals: lineTotals({ merchandise: 0, fee: o.feeMinor, tax: 0, grand: o.feeMinor }, currency),
    rank: o.rank,
  };
}

export function cartOrderMessage(order: Order, redemptionUrl: string): CartOrder {
  return {
    orderId: order.id,
    orderNumber: order.orderNumber,
    grandTotal: money(order.grandMinor, order.currency),
    redemptionUrl,
    status:
      order.status === 'CANCELLED'
        ? OrderStatus.ORDER_STATUS_CANCELLED
        : OrderStatus.ORDER_STATUS_CONFIRMED,
    confirmedAt: order.confirmedAt,
    printed: order.printed === 'PRINT',
    payment: orderPaymentMessage(order),
    ...(order.ticketCancelPending
      ? {
          pendingTicketCancel: {
            ticketIds: order.ticketCancelPending.ticketIds,
            requestedAt: order.ticketCancelPending.requestedAt,
            attempts: order.ticketCancelPending.attempts,
            lastError: order.ticketCancelPending.lastError ?? '',
            ...(order.ticketCancelDueAt ? { nextAttemptAt: order.ticketCancelDueAt } : {}),
          },
        }
      : {}),
  };
}

/** A cart view as the partner cart contract's `Cart`. */
export function cartMessage(view: CartView, app: CartApp): ProtoCart {
  const { cart, priced } = view;
  const c = cart.currency;
  return {
    id: cart.id,
    eventId: cart.eventId,
    items: priced.lines.flatMap((line) =>
      line.groups.map((g) => ({
        areaId: line.areaId,
        section: line.section,
        row: line.row,
        seats: cart.tickets
          .filter(
            (t) =>
              t.areaId === line.areaId &&
              t.section === line.section &&
              t.row === line.row &&
              t.priceTypeId === g.priceTypeId &&
              t.priceLevelId === g.priceLevelId &&
              t.seat !== '',
          )
          .map((t) => t.seat),
        priceLevelId: g.priceLevelId,
        priceTypeId: g.priceTypeId,
        quantity: g.quantity,
        unitPrice: money(g.faceValueMinor, c),
        inventoryType: inventoryTypeOf(g.priceTypeId),
      })),
    ),
    totals: {
      merchandise: money(priced.totals.merchandise, c),
      fee: money(priced.totals.fee, c),
      tax: money(priced.totals.tax, c),
      delivery: money(priced.totals.delivery, c),
      upsell: money(priced.totals.upsell, c),
      grand: money(priced.totals.grand, c),
      unpaid: money(priced.totals.unpaid, c),
    },
    holdTimeSeconds: view.holdSeconds,
    expiresAt: cart.status === 'HELD' || cart.status === 'PAID' ? cart.expiresAt : undefined,
    language: cart.language,
    status: STATUS[cart.status] ?? CartStatus.CART_STATUS_UNSPECIFIED,
    ticketItems: priced.lines.map((line) => ({
      id: line.lineNumber,
      areaId: line.areaId,
      areaDescription: line.areaDescription,
      section: line.section,
      row: line.row,
      startSeat: line.seats[0] ?? '',
      endSeat: line.seats[line.seats.length - 1] ?? '',
      generalAdmission: line.generalAdmission,
      quantity: line.quantity,
      tickets: line.groups.map((g) => ({
        id: g.priceTypeId,
        description: [g.priceLevelId, g.priceTypeId].filter(Boolean).join(' / ') || g.priceTypeId,
        quantity: g.quantity,
        inventoryType: inventoryTypeOf(g.priceTypeId),
        charges: g.charges.map((ch) => charge(ch, c)),
        priceLevelId: g.priceLevelId,
      })),
      totals: lineTotals(line.totals, c),
      seats: line.seats,
      inventoryType: inventoryTypeOf(line.groups[0]?.priceTypeId ?? ''),
      resale: line.resale && {
        location: line.resale.location,
        sellerNotes: line.resale.sellerNotes,
        averageOriginalTotalValue: money(line.resale.averageOriginalTotalMinor, c),
        inHandDate: line.resale.inHandDate,
      },
    })),
    delivery: cart.delivery ? shippingOptionMessage(cart.delivery, c) : undefined,
    processingFee: priced.processing ? money(priced.processing.priceMinor, c) : undefined,
    processingFeeTax: priced.processing ? money(priced.processing.taxMinor, c) : undefined,
    payments: cart.payment
      ? [
          {
            id: '1',
            paymentId: cart.payment.paymentId,
            type: cart.payment.type,
            amount: money(cart.payment.amountMinor, c),
            expireMonth: cart.payment.expireMonth,
            expireYear: cart.payment.expireYear,
            issuer: cart.payment.issuer,
            maskedNumber: cart.payment.maskedNumber,
          },
        ]
      : [],
    agreements: view.agreements.map((a) => ({
      name: a.name,
      locale: a.locale,
      text: a.text,
      type: a.type,
      agreementUrl: a.agreementUrl,
    })),
    currency: c,
    sandbox: cart.sandbox,
    order: view.order ? cartOrderMessage(view.order, app.redemptionUrl(view.order)) : undefined,
    failureCode: cart.failure?.code ?? '',
    failureMessage: cart.failure?.message ?? '',
    secureEntryEnabled: cart.secureEntryEnabled,
    createdAt: cart.createdAt,
  };
}

/** The request as idempotency hashes it: the operation name and the request without its key. */
function requestBytes(operation: string, encoded: Uint8Array): Uint8Array {
  const name = new TextEncoder().encode(`${operation}\u0000`);
  const bytes = new Uint8Array(name.length + encoded.length);
  bytes.set(name);
  bytes.set(encoded, name.length);
  return bytes;
}

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

/** `marquee.cart.v1.CartService`: maps messages, applies idempotency keys, delegates to the app. */
export function cartGrpc(app: CartApp, idempotency: Idempotency): GrpcRegistration {
  const owner = (r: { appId: string; sandbox: boolean }): CartOwner => ({
    appId: r.appId,
    sandbox: r.sandbox,
    channel: 'partner-cart',
  });
  // An order as GetOrder (and PrintOrder) answer it.
  const orderAnswer = (order: Order): GetOrderResponse => ({
    order: cartOrderMessage(order, app.redemptionUrl(order)),
    eventId: order.eventId,
    cartId: order.cartId,
    tickets: orderTickets(order),
    fanId: '',
  });
  const implementation: CartServiceServer = {
    getEventAvailability: unary(async (r) => {
      const a = await app.availability({ eventId: r.eventId, sandbox: r.sandbox });
      const c = a.event.currency;
      return {
        eventId: a.event.id,
        secureEntryEnabled: a.event.secureEntryEnabled,
        currency: c,
        ticketLimit: a.event.ticketLimit,
        onSale: a.onSale,
        areas: a.areas.map(({ seats, ...area }) => ({ ...area, availableSeats: seats ?? [] })),
        totalAvailable: a.totalAvailable,
        offers: a.offers.map((o) => ({
          ticketTypeId: o.priceTypeId,
          priceLevelId: o.priceLevelId,
          name: o.name,
          faceValue: money(o.faceValueMinor, c),
          charges: [
            {
              type: 'service',
              price: money(o.serviceFeeMinor, c),
              quantity: 1,
              tax: money(o.serviceFeeTaxMinor, c),
              feeType: 'per ticket',
            },
            ...(o.processingFeeMinor > 0
              ? [
                  {
                    type: 'processing',
                    price: money(o.processingFeeMinor, c),
                    quantity: 1,
                    tax: money(o.processingFeeTaxMinor, c),
                    feeType: 'per order',
                  },
                ]
              : []),
          ],
          protected: o.protected,
        })),
        observedAt: a.observedAt,
        onsaleAt: a.event.onSaleFrom,
        offsaleAt: a.event.onSaleUntil,
      };
    }),
    // A reserve takes its place (CART_MAX_RESERVES_IN_FLIGHT) before it touches the store, so a
    // burst reaches the store only as far as it can be served: the rest is refused at once, 503
    // with Retry-After, without a read or a write. A new key is also refused while the event has
    // just sold out (a retry of a reserve that already ran still gets its first answer, its cart).
    // The place is given back while the call only waits for a duplicate, and at its end.
    reserveCart: unary(async (r: ReserveCartRequest) => {
      const input: ReserveInput = {
        owner: {
          ...owner(r),
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
      let release: (() => void) | undefined = app.takeReserveSlot();
      const admit = () => {
        release ??= app.takeReserveSlot();
      };
      try {
        return await idempotency.run(
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
            encode: (res) => ReserveCartResponse.encode(res).finish(),
            decode: (bytes) => ReserveCartResponse.decode(bytes),
          },
          async (): Promise<ReserveCartResponse> => {
            admit(); // given back while waiting for a duplicate whose lease then ended: taken again
            const view = await app.reserve(input);
            return { cart: cartMessage(view, app), pollAfterSeconds: view.pollAfterSeconds };
          },
          {
            // Only while the hint is live: it makes the helper read the key before taking it.
            ...(app.soldOutHinted(input.eventId)
              ? { refuseNew: () => app.refuseIfJustSoldOut(input) }
              : {}),
            onWait: () => {
              release?.();
              release = undefined;
            },
          },
        );
      } finally {
        release?.();
      }
    }),
    getCart: unary(async (r) => {
      const view = await app.get(owner(r), r.cartId, r.eventId);
      return { cart: cartMessage(view, app), pollAfterSeconds: view.pollAfterSeconds };
    }),
    getShippingOptions: unary(async (r) => {
      const view = await app.get(owner(r), r.cartId, r.eventId);
      const options = await app.shippingOptions(owner(r), r.cartId, r.region, r.eventId);
      return { options: options.map((o) => shippingOptionMessage(o, view.cart.currency)) };
    }),
    selectShipping: unary(async (r) => ({
      cart: cartMessage(await app.selectShipping(owner(r), r.cartId, r.shippingId, r.eventId), app),
    })),
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
          const b = r.billing;
          const view = await app.addPayment(
            owner(r),
            r.cartId,
            {
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
            },
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
          const result = await app.commit(owner(r), r.cartId, r.eventId);
          return {
            cart: cartMessage(result.view, app),
            order: cartOrderMessage(result.order, app.redemptionUrl(result.order)),
            orderToken: result.orderToken,
          };
        },
      ),
    ),
    releaseCart: unary(async (r) => {
      await app.release(owner(r), r.cartId, r.eventId);
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
          ...orderAnswer(order),
          fanId: fanIdWanted ? (order.fanId ?? '') : '',
          ...(order.contactErasedAt ? { contactErasedAt: order.contactErasedAt } : {}),
        };
      })(call, callback);
    },
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
    printOrder: unary(async (r): Promise<PrintOrderResponse> =>
      orderAnswer(await app.printOrder(r.orderId, printActionFromProto(r.action))),
    ),
  };
  return { definition: CartServiceService, implementation };
}
