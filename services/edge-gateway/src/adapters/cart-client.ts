import { BinaryReader } from '@bufbuild/protobuf/wire';
import { AppError, isAppErrorLike } from '@marquee/platform/errors';
import {
  assertInFlightRoom,
  callUnary,
  createGrpcClient,
  type UnaryMethodName,
} from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import {
  CancelReason as CancelReasonMessage,
  CartServiceClient,
  CartStatus as CartStatusMessage,
  InventoryType as InventoryTypeMessage,
  OrderStatus as OrderStatusMessage,
  PrintAction as PrintActionMessage,
  type Cart,
  type CartOrder as CartOrderMessage,
  type Charge as ChargeMessage,
  type GetEventAvailabilityResponse,
  type GetOrderResponse,
  type LineTotals as LineTotalsMessage,
  type OrderPayment as OrderPaymentMessage,
  type ShippingOption as ShippingOptionMessage,
} from '@marquee/proto/cart/v1';
import type {
  CancelReason,
  CartCaller,
  CartOrder,
  CartRecord,
  CartStatus,
  Charge,
  EventAvailability,
  InventoryType,
  LineTotals,
  Money,
  OrderPayment,
  OrderRecord,
  OrderStatus,
  PartnerCart,
  PrintAction,
  ReserveInput,
  ShippingOption,
} from '../app/partner-cart.js';

const STATUS: Record<CartStatusMessage, CartStatus> = {
  [CartStatusMessage.CART_STATUS_UNSPECIFIED]: 'UNSPECIFIED',
  [CartStatusMessage.CART_STATUS_PENDING]: 'PENDING',
  [CartStatusMessage.CART_STATUS_HELD]: 'HELD',
  [CartStatusMessage.CART_STATUS_PAID]: 'PAID',
  [CartStatusMessage.CART_STATUS_COMMITTED]: 'COMMITTED',
  [CartStatusMessage.CART_STATUS_RELEASED]: 'RELEASED',
  [CartStatusMessage.CART_STATUS_EXPIRED]: 'EXPIRED',
  [CartStatusMessage.CART_STATUS_FAILED]: 'FAILED',
  [CartStatusMessage.UNRECOGNIZED]: 'UNSPECIFIED',
};

const ORDER_STATUS: Record<OrderStatusMessage, OrderStatus> = {
  [OrderStatusMessage.ORDER_STATUS_UNSPECIFIED]: 'UNSPECIFIED',
  [OrderStatusMessage.ORDER_STATUS_CONFIRMED]: 'CONFIRMED',
  [OrderStatusMessage.ORDER_STATUS_CANCELLED]: 'CANCELLED',
  [OrderStatusMessage.UNRECOGNIZED]: 'UNSPECIFIED',
};

const PRINT_ACTION: Record<PrintAction, PrintActionMessage> = {
  PRINT: PrintActionMessage.PRINT_ACTION_PRINT,
  ROLLBACK_PRINT: PrintActionMessage.PRINT_ACTION_ROLLBACK_PRINT,
};

const CANCEL_REASON: Record<CancelReason, CancelReasonMessage> = {
  REQUESTED: CancelReasonMessage.CANCEL_REASON_REQUESTED,
  EVENT_CANCELLED: CancelReasonMessage.CANCEL_REASON_EVENT_CANCELLED,
  RECONCILIATION: CancelReasonMessage.CANCEL_REASON_RECONCILIATION,
  PAYMENT_REVERSED: CancelReasonMessage.CANCEL_REASON_PAYMENT_REVERSED,
};

const inventoryType = (t: InventoryTypeMessage): InventoryType =>
  t === InventoryTypeMessage.INVENTORY_TYPE_RESALE ? 'RESALE' : 'PRIMARY';

const money = (m: Money | undefined): Money | undefined =>
  m === undefined ? undefined : { amountMinor: m.amountMinor, currency: m.currency };

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

function toCharge(c: ChargeMessage): Charge {
  return {
    type: c.type,
    ...optional('price', money(c.price)),
    quantity: c.quantity,
    ...optional('tax', money(c.tax)),
    feeType: c.feeType,
  };
}

function toLineTotals(t: LineTotalsMessage | undefined): LineTotals {
  return {
    ...optional('merchandise', money(t?.merchandise)),
    ...optional('fee', money(t?.fee)),
    ...optional('tax', money(t?.tax)),
    ...optional('grand', money(t?.grand)),
  };
}

export function toShippingOption(s: ShippingOptionMessage): ShippingOption {
  return {
    id: s.id,
    carrier: s.carrier,
    serviceLevel: s.serviceLevel,
    requiresAddress: s.requiresAddress,
    descriptionLong: s.descriptionLong,
    descriptionShort: s.descriptionShort,
    eta: s.eta,
    totals: toLineTotals(s.totals),
    rank: s.rank,
  };
}

export function toCartOrder(o: CartOrderMessage): CartOrder {
  return {
    orderId: o.orderId,
    orderNumber: o.orderNumber,
    ...optional('grandTotal', money(o.grandTotal)),
    redemptionUrl: o.redemptionUrl,
    status: ORDER_STATUS[o.status] ?? 'UNSPECIFIED',
    ...optional('confirmedAt', o.confirmedAt),
    printed: o.printed,
    ...optional('payment', o.payment && toOrderPayment(o.payment)),
    ...optional(
      'pendingTicketCancel',
      o.pendingTicketCancel && {
        ticketIds: o.pendingTicketCancel.ticketIds,
        ...optional('requestedAt', o.pendingTicketCancel.requestedAt),
        attempts: o.pendingTicketCancel.attempts,
        lastError: o.pendingTicketCancel.lastError,
        ...optional('nextAttemptAt', o.pendingTicketCancel.nextAttemptAt),
      },
    ),
  };
}

export function toOrderPayment(p: OrderPaymentMessage): OrderPayment {
  return {
    provider: p.provider,
    paymentId: p.paymentId,
    ...optional('authorized', money(p.authorized)),
    ...optional('captured', money(p.captured)),
    ...optional('refunded', money(p.refunded)),
    refunds: p.refunds.map((r) => ({
      refundId: r.refundId,
      ...optional('amount', money(r.amount)),
      status: r.status,
      source: r.source,
      ticketIds: r.ticketIds,
      ...optional('refundedAt', r.refundedAt),
    })),
    refundPending: p.refundPending,
    disputed: p.disputed,
    refusedRefunds: p.refusedRefunds.map((r) => ({
      key: r.key,
      reason: r.reason,
      ...optional('refusedAt', r.refusedAt),
    })),
  };
}

export function toCartRecord(c: Cart): CartRecord {
  const t = c.totals;
  return {
    id: c.id,
    eventId: c.eventId,
    status: STATUS[c.status] ?? 'UNSPECIFIED',
    holdTimeSeconds: c.holdTimeSeconds,
    ...optional('expiresAt', c.expiresAt),
    language: c.language,
    ticketItems: c.ticketItems.map((line) => ({
      id: line.id,
      areaId: line.areaId,
      areaDescription: line.areaDescription,
      section: line.section,
      row: line.row,
      startSeat: line.startSeat,
      endSeat: line.endSeat,
      generalAdmission: line.generalAdmission,
      quantity: line.quantity,
      tickets: line.tickets.map((ticket) => ({
        id: ticket.id,
        description: ticket.description,
        quantity: ticket.quantity,
        inventoryType: inventoryType(ticket.inventoryType),
        charges: ticket.charges.map(toCharge),
        priceLevelId: ticket.priceLevelId,
      })),
      totals: toLineTotals(line.totals),
      seats: line.seats,
      inventoryType: inventoryType(line.inventoryType),
      ...optional(
        'resale',
        line.resale && {
          location: line.resale.location,
          sellerNotes: line.resale.sellerNotes,
          ...optional('averageOriginalTotalValue', money(line.resale.averageOriginalTotalValue)),
          inHandDate: line.resale.inHandDate,
        },
      ),
    })),
    ...optional('delivery', c.delivery && toShippingOption(c.delivery)),
    ...optional('processingFee', money(c.processingFee)),
    ...optional('processingFeeTax', money(c.processingFeeTax)),
    payments: c.payments.map((p) => ({
      id: p.id,
      paymentId: p.paymentId,
      type: p.type,
      ...optional('amount', money(p.amount)),
      expireMonth: p.expireMonth,
      expireYear: p.expireYear,
      issuer: p.issuer,
      maskedNumber: p.maskedNumber,
    })),
    agreements: c.agreements.map((a) => ({
      name: a.name,
      locale: a.locale,
      text: a.text,
      type: a.type,
      agreementUrl: a.agreementUrl,
    })),
    totals: {
      ...optional('merchandise', money(t?.merchandise)),
      ...optional('fee', money(t?.fee)),
      ...optional('tax', money(t?.tax)),
      ...optional('delivery', money(t?.delivery)),
      ...optional('upsell', money(t?.upsell)),
      ...optional('grand', money(t?.grand)),
      ...optional('unpaid', money(t?.unpaid)),
    },
    currency: c.currency,
    sandbox: c.sandbox,
    ...optional('order', c.order && toCartOrder(c.order)),
    failureCode: c.failureCode,
    failureMessage: c.failureMessage,
    secureEntryEnabled: c.secureEntryEnabled,
    ...optional('createdAt', c.createdAt),
  };
}

export function toEventAvailability(a: GetEventAvailabilityResponse): EventAvailability {
  return {
    eventId: a.eventId,
    secureEntryEnabled: a.secureEntryEnabled,
    currency: a.currency,
    ticketLimit: a.ticketLimit,
    onSale: a.onSale,
    areas: a.areas.map((area) => ({
      areaId: area.areaId,
      levelId: area.levelId,
      sectionId: area.sectionId,
      priceLevelId: area.priceLevelId,
      generalAdmission: area.generalAdmission,
      available: area.available,
      unavailable: area.unavailable,
      availableSeats: area.availableSeats.map((s) => ({ id: s.id, row: s.row, number: s.number })),
    })),
    totalAvailable: a.totalAvailable,
    offers: a.offers.map((o) => ({
      ticketTypeId: o.ticketTypeId,
      priceLevelId: o.priceLevelId,
      name: o.name,
      ...optional('faceValue', money(o.faceValue)),
      charges: o.charges.map(toCharge),
      protected: o.protected,
    })),
    ...optional('observedAt', a.observedAt),
    ...optional('onsaleAt', a.onsaleAt),
    ...optional('offsaleAt', a.offsaleAt),
  };
}

export function toOrderRecord(
  o: Pick<GetOrderResponse, 'order' | 'eventId' | 'cartId' | 'tickets'>,
): OrderRecord {
  return {
    order: toCartOrder(o.order!),
    eventId: o.eventId,
    cartId: o.cartId,
    tickets: toOrderTickets(o.tickets),
  };
}

/** Cart's order tickets as the edge's records (the cancelled ones with `cancelledAt`). */
export function toOrderTickets(tickets: GetOrderResponse['tickets']): OrderRecord['tickets'] {
  return tickets.map((t) => ({
    ticketId: t.ticketId,
    seat: t.seat,
    areaId: t.item?.areaId ?? '',
    section: t.item?.section ?? '',
    row: t.item?.row ?? '',
    priceLevelId: t.item?.priceLevelId ?? '',
    priceTypeId: t.item?.priceTypeId ?? '',
    ...optional('unitPrice', money(t.item?.unitPrice)),
    inventoryType: inventoryType(
      t.item?.inventoryType ?? InventoryTypeMessage.INVENTORY_TYPE_PRIMARY,
    ),
    ...optional('cancelledAt', t.cancelledAt),
  }));
}

/** Trailer of the standard rich error model: a serialised `google.rpc.Status`. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

/**
 * The `google.rpc.ErrorInfo` inside a serialised `google.rpc.Status` (field 3, `details`, is a
 * repeated `google.protobuf.Any`), read with the protobuf wire reader: the edge has no generated
 * code for google/rpc, and three small messages do not justify it. Undefined when absent or
 * malformed.
 */
export function errorInfoOf(statusBytes: Uint8Array): ErrorInfo | undefined {
  try {
    const status = new BinaryReader(statusBytes);
    while (status.pos < status.len) {
      const [field, wireType] = status.tag();
      if (field !== 3) {
        status.skip(wireType);
        continue;
      }
      const any = new BinaryReader(status.bytes());
      let typeUrl = '';
      let value: Uint8Array | undefined;
      while (any.pos < any.len) {
        const [f, w] = any.tag();
        if (f === 1) typeUrl = any.string();
        else if (f === 2) value = any.bytes();
        else any.skip(w);
      }
      if (typeUrl === ERROR_INFO_TYPE && value) return readErrorInfo(value);
    }
  } catch {
    // Not a google.rpc.Status: no reason.
  }
  return undefined;
}

function readErrorInfo(bytes: Uint8Array): ErrorInfo {
  const reader = new BinaryReader(bytes);
  const info: ErrorInfo = { reason: '', domain: '', metadata: {} };
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) info.reason = reader.string();
    else if (field === 2) info.domain = reader.string();
    else if (field === 3) {
      const entry = new BinaryReader(reader.bytes());
      let key = '';
      let value = '';
      while (entry.pos < entry.len) {
        const [f, w] = entry.tag();
        if (f === 1) key = entry.string();
        else if (f === 2) value = entry.string();
        else entry.skip(w);
      }
      info.metadata[key] = value;
    } else reader.skip(wireType);
  }
  return info;
}

/**
 * The error a failed call stands for, with the partner cart error code as `details.reason`: from
 * the `google.rpc.ErrorInfo` of the status details when the service sent one, else as the platform's
 * JSON details carried it (`details.reason`). ErrorInfo metadata (e.g. `retry_after_seconds`) joins
 * the details.
 */
export function withErrorReason(error: unknown): unknown {
  if (!isAppErrorLike(error)) return error;
  const cause = (error as { cause?: { metadata?: { get?: (key: string) => unknown[] } } }).cause;
  const raw =
    typeof cause?.metadata?.get === 'function' ? cause.metadata.get(STATUS_DETAILS_KEY) : [];
  const bytes = raw.find((value): value is Buffer => Buffer.isBuffer(value));
  const info = bytes ? errorInfoOf(bytes) : undefined;
  if (!info?.reason) return error;
  return new AppError(error.kind, error.message, {
    cause,
    details: { ...error.details, ...info.metadata, reason: info.reason },
  });
}

/** Calls cart; a failure carries the partner cart error code (see {@link withErrorReason}). */
function reasonedUnary(client: CartServiceClient) {
  return async function unary<M extends UnaryMethodName<CartServiceClient>>(
    method: M,
    request: Parameters<typeof callUnary<CartServiceClient, M>>[2],
  ): Promise<Awaited<ReturnType<typeof callUnary<CartServiceClient, M>>>> {
    try {
      return await callUnary(client, method, request);
    } catch (error) {
      throw withErrorReason(error);
    }
  };
}

type CartUnary = ReturnType<typeof reasonedUnary>;

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

function emptyOrder(): CartOrderMessage {
  return {
    orderId: '',
    orderNumber: '',
    redemptionUrl: '',
    status: OrderStatusMessage.ORDER_STATUS_UNSPECIFIED,
    printed: false,
  };
}
