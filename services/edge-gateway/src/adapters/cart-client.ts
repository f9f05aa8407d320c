import { assertInFlightRoom, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { CancelReason as CancelReasonMessage, CartServiceClient } from '@marquee/proto/cart/v1';
import type { CartCaller, PartnerCart, ReserveInput } from '../app/partner-cart.js';

import {
  CANCEL_REASON,
  emptyOrder,
  PRINT_ACTION,
  toCartOrder,
  toCartRecord,
  toEventAvailability,
  toOrderRecord,
  toOrderTickets,
  toShippingOption,
} from './cart-messages.js';
import { reasonedUnary, type CartUnary } from './cart-errors.js';

function reserveCartRequest(caller: CartCaller, input: ReserveInput) {
  return {
    appId: caller.appId,
    eventId: input.eventId,
    reserves: input.reserves.map((r) => ({
      tickets: r.tickets.map((t) => ({
        id: t.id,
        quantity: t.quantity,
        priceId: t.priceId,
        amount: t.amount,
      })),
      areaIds: r.areaIds,
      section: r.section,
      row: r.row,
      beginSeat: r.beginSeat,
      endSeat: r.endSeat,
      acceptBestAvailable: r.acceptBestAvailable,
    })),
    fanSessionId: input.fanSessionId,
    sandbox: caller.sandbox,
    idempotencyKey: input.idempotencyKey,
    forceAsync: input.forceAsync,
    language: input.language,
    ...(input.admission
      ? {
          admissionToken: input.admission.token,
          ...(input.admission.fanId ? { queueFanId: input.admission.fanId } : {}),
          ...(input.admission.deviceId ? { queueDeviceId: input.admission.deviceId } : {}),
        }
      : {}),
    ...(caller.heldTicketsPerEvent !== undefined
      ? { heldTicketsPerEvent: caller.heldTicketsPerEvent }
      : {}),
  };
}

function addPaymentRequest(caller: CartCaller, input: Parameters<PartnerCart['addPayment']>[1]) {
  const b = input.billing;
  return {
    appId: caller.appId,
    eventId: input.eventId,
    cartId: input.cartId,
    sandbox: caller.sandbox,
    idempotencyKey: input.idempotencyKey,
    billing: {
      firstName: b.firstName,
      lastName: b.lastName,
      homePhone: b.homePhone,
      type: b.type,
      reference: b.reference,
      address: b.address,
      amount: b.amount,
      cardNonce: b.cardNonce,
      cin: b.cin,
      expireMonth: b.expireMonth,
      expireYear: b.expireYear,
      emailAddress: b.emailAddress,
      thirdPartyAccountId: b.thirdPartyAccountId,
    },
  };
}

/** The checkout steps of a held cart: shipping, payment, commit. */
function checkout(
  unary: CartUnary,
): Pick<PartnerCart, 'getShippingOptions' | 'selectShipping' | 'addPayment' | 'commitCart'> {
  return {
    async getShippingOptions(caller, eventId, cartId, region) {
      const answer = await unary('getShippingOptions', {
        appId: caller.appId,
        eventId,
        cartId,
        region,
        sandbox: caller.sandbox,
      });
      return answer.options.map(toShippingOption);
    },
    async selectShipping(caller, eventId, cartId, shippingId) {
      const answer = await unary('selectShipping', {
        appId: caller.appId,
        eventId,
        cartId,
        shippingId,
        sandbox: caller.sandbox,
      });
      return toCartRecord(answer.cart!);
    },
    async addPayment(caller, input) {
      const answer = await unary('addPayment', addPaymentRequest(caller, input));
      return toCartRecord(answer.cart!);
    },
    async commitCart(caller, input) {
      const answer = await unary('commitCart', {
        appId: caller.appId,
        eventId: input.eventId,
        cartId: input.cartId,
        sandbox: caller.sandbox,
        idempotencyKey: input.idempotencyKey,
      });
      const cart = toCartRecord(answer.cart!);
      return {
        cart,
        order: answer.order ? toCartOrder(answer.order) : (cart.order ?? toCartOrder(emptyOrder())),
        orderToken: answer.orderToken,
      };
    },
  };
}

/** The operators' order calls of the port (no app: any order). */
function operatorOrders(
  unary: CartUnary,
): Pick<PartnerCart, 'cancelOrder' | 'getOrder' | 'printOrder'> {
  return {
    async cancelOrder(orderId, reason, detail, ticketIds = []) {
      const answer = await unary('cancelOrder', {
        orderId,
        reason: reason ? CANCEL_REASON[reason] : CancelReasonMessage.CANCEL_REASON_UNSPECIFIED,
        detail,
        ticketIds: [...ticketIds],
      });
      return {
        order: toCartOrder(answer.order ?? emptyOrder()),
        partnerCancelQueued: answer.partnerCancelQueued,
        tickets: toOrderTickets(answer.tickets ?? []),
      };
    },
    async getOrder(orderId) {
      return toOrderRecord(await unary('getOrder', { orderId, appId: '' }));
    },
    async printOrder(orderId, action) {
      return toOrderRecord(await unary('printOrder', { orderId, action: PRINT_ACTION[action] }));
    },
  };
}

/** cart's CartService as the edge's PartnerCart port. Errors arrive as kinds with `details.reason`. */
export function createCartClient(
  address: string,
  options: { deadlineMs: number; logger: Logger; maxInFlight?: number },
): PartnerCart & { close(): void } {
  const client = createGrpcClient(CartServiceClient, address, options);
  const unary = reasonedUnary(client);

  return {
    assertRoom: () => assertInFlightRoom(client),
    async getEventAvailability(caller, eventId) {
      return toEventAvailability(
        await unary('getEventAvailability', {
          appId: caller.appId,
          eventId,
          sandbox: caller.sandbox,
        }),
      );
    },
    async reserveCart(caller, input) {
      const answer = await unary('reserveCart', reserveCartRequest(caller, input));
      return { cart: toCartRecord(answer.cart!), pollAfterSeconds: answer.pollAfterSeconds };
    },
    async getCart(caller, eventId, cartId) {
      const answer = await unary('getCart', {
        appId: caller.appId,
        cartId,
        eventId,
        sandbox: caller.sandbox,
      });
      return { cart: toCartRecord(answer.cart!), pollAfterSeconds: answer.pollAfterSeconds };
    },
    ...checkout(unary),
    async releaseCart(caller, eventId, cartId) {
      await unary('releaseCart', { appId: caller.appId, eventId, cartId, sandbox: caller.sandbox });
    },
    async recordTracking(caller, hit) {
      await unary('recordTracking', {
        appId: caller.appId,
        eventId: hit.eventId,
        sharedId: hit.sharedId,
        subId1: hit.subId1,
        subId2: hit.subId2,
        subId3: hit.subId3,
        sandbox: caller.sandbox,
      });
    },
    ...operatorOrders(unary),
    close: () => client.close(),
  };
}
