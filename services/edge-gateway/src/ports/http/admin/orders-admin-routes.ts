import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type {
  CancelReason,
  CartOrder,
  Money,
  OrderPayment,
  OrderRecord,
  PartnerCart,
  PendingTicketCancel,
  PrintAction,
} from '../../../app/partner-cart.js';
import { OPTIONAL_BODY, emptyBodyWhenAbsent } from '../openapi-contract.js';
import { AdminError, AdminId } from './admin-schemas.js';

const Id = AdminId;

const MoneyJson = Type.Object(
  {
    amountMinor: Type.Integer({ description: 'Minor units of currency (2550 = 25.50 USD)' }),
    currency: Type.String(),
  },
  { description: 'An amount in minor units' },
);

const OrderRefundJson = Type.Object({
  refundId: Type.String({ description: "The processor's refund id (`re_...`)" }),
  amount: Type.Optional(MoneyJson),
  status: Type.String({ description: '`succeeded`, or `pending` until the processor settled it' }),
  source: Type.String({
    description:
      "`cancel` (the order's cancel asked for it) or `processor` (made at the processor, e.g. its dashboard)",
  }),
  ticketIds: Type.Array(Type.String(), { description: 'The tickets it refunds; empty: the order' }),
  refundedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

const OrderPaymentJson = Type.Object(
  {
    provider: Type.String({ description: '`stripe`, or `sandbox` (no money moves)' }),
    paymentId: Type.String({ description: "The processor's payment id (`pi_...`, `sbx_...`)" }),
    authorized: Type.Optional(MoneyJson),
    captured: Type.Optional(MoneyJson),
    refunded: Type.Optional(MoneyJson),
    refunds: Type.Array(OrderRefundJson),
    refundPending: Type.Boolean({
      description: 'A cancel owes a refund the processor has not taken yet; cart retries it',
    }),
    disputed: Type.Boolean({
      description:
        'The cardholder disputed the payment (a chargeback): the order is cancelled as PAYMENT_REVERSED',
    }),
    refusedRefunds: Type.Array(
      Type.Object({
        key: Type.String({ description: "The refund's idempotency key" }),
        reason: Type.String({ description: "The processor's reason" }),
        refusedAt: Type.Optional(Type.String({ format: 'date-time' })),
      }),
      {
        description:
          'Refunds a cancel owed that the processor refused for good (e.g. refunded at the processor already): an operator settles each',
      },
    ),
  },
  { description: 'The money of the order; absent for orders confirmed before orders kept it' },
);

const Order = Type.Object(
  {
    orderId: Type.String(),
    orderNumber: Type.String(),
    grandTotal: Type.Optional(MoneyJson),
    redemptionUrl: Type.String(),
    status: Type.Union(['UNSPECIFIED', 'CONFIRMED', 'CANCELLED'].map((s) => Type.Literal(s))),
    confirmedAt: Type.Optional(Type.String({ format: 'date-time' })),
    printed: Type.Boolean({
      description: 'Printing recorded at the partner (POST …/print), not rolled back since',
    }),
    payment: Type.Optional(OrderPaymentJson),
    pendingTicketCancel: Type.Optional(
      Type.Object(
        {
          ticketIds: Type.Array(Type.String()),
          requestedAt: Type.Optional(Type.String({ format: 'date-time' })),
          attempts: Type.Integer({ description: 'Asks of the partner without an answer' }),
          lastError: Type.String({ description: 'The last failure to reach the partner' }),
          nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
        },
        {
          description:
            'A cancel of some tickets the partner has not answered yet: its tickets stay valid, and cart asks the partner again until it took the cancel (the tickets are then cancelled and refunded) or refused it (then this goes away)',
        },
      ),
    ),
  },
  { title: 'AdminOrder' },
);

const OrderTicket = Type.Object({
  ticketId: Type.String(),
  seat: Type.String(),
  areaId: Type.String(),
  section: Type.String(),
  row: Type.String(),
  priceLevelId: Type.String(),
  priceTypeId: Type.String(),
  unitPrice: Type.Optional(MoneyJson),
  inventoryType: Type.Union([Type.Literal('PRIMARY'), Type.Literal('RESALE')]),
  cancelledAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'When a partial cancel cancelled this ticket; absent while it is valid (an order cancelled whole says so in its status)',
    }),
  ),
});

/** An order with its tickets: the answer of the read and of a print action. */
const OrderWithTickets = Type.Object(
  {
    order: Order,
    eventId: Type.String(),
    cartId: Type.String(),
    tickets: Type.Array(OrderTicket),
  },
  { title: 'AdminOrderWithTickets' },
);

const REASONS: readonly CancelReason[] = [
  'REQUESTED',
  'EVENT_CANCELLED',
  'RECONCILIATION',
  'PAYMENT_REVERSED',
];

const CancelBody = Type.Object(
  {
    reason: Type.Optional(
      Type.Union(
        REASONS.map((r) => Type.Literal(r)),
        { description: 'Default REQUESTED' },
      ),
    ),
    detail: Type.Optional(Type.String({ maxLength: 1000, description: 'Free text for operators' })),
    ticketIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description:
          "Cancel only these tickets (the partner's ticket ids, as the order read lists them); absent: the whole order. Refunds exactly those tickets' share; the last tickets also refund the order fees and delivery and cancel the order (docs/payments.md, Refunds)",
      }),
    ),
  },
  { additionalProperties: false },
);

const ACTIONS: readonly PrintAction[] = ['PRINT', 'ROLLBACK_PRINT'];

const PrintBody = Type.Object(
  {
    action: Type.Optional(
      Type.Union(
        ACTIONS.map((a) => Type.Literal(a)),
        {
          description:
            'PRINT (default): printing of the order recorded at the partner; ROLLBACK_PRINT: printing rolled back after a printing problem, the order printable again',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** `{ [key]: {amountMinor, currency} }`, or nothing without an amount. */
const amount = (key: string, m: Money | undefined) =>
  m ? { [key]: { amountMinor: m.amountMinor, currency: m.currency } } : {};

function renderPayment(p: OrderPayment) {
  return {
    provider: p.provider,
    paymentId: p.paymentId,
    ...amount('authorized', p.authorized),
    ...amount('captured', p.captured),
    ...amount('refunded', p.refunded),
    refunds: p.refunds.map((r) => ({
      refundId: r.refundId,
      ...amount('amount', r.amount),
      status: r.status,
      source: r.source,
      ticketIds: r.ticketIds,
      ...(r.refundedAt ? { refundedAt: r.refundedAt.toISOString() } : {}),
    })),
    refundPending: p.refundPending,
    disputed: p.disputed,
    refusedRefunds: p.refusedRefunds.map((r) => ({
      key: r.key,
      reason: r.reason,
      ...(r.refusedAt ? { refusedAt: r.refusedAt.toISOString() } : {}),
    })),
  };
}

const iso = (key: string, at: Date | undefined) => (at ? { [key]: at.toISOString() } : {});

function renderPendingCancel(p: PendingTicketCancel) {
  return {
    ticketIds: p.ticketIds,
    ...iso('requestedAt', p.requestedAt),
    attempts: p.attempts,
    lastError: p.lastError,
    ...iso('nextAttemptAt', p.nextAttemptAt),
  };
}

function renderOrder(o: CartOrder) {
  return {
    orderId: o.orderId,
    orderNumber: o.orderNumber,
    ...amount('grandTotal', o.grandTotal),
    redemptionUrl: o.redemptionUrl,
    status: o.status,
    ...(o.confirmedAt ? { confirmedAt: o.confirmedAt.toISOString() } : {}),
    printed: o.printed,
    ...(o.payment ? { payment: renderPayment(o.payment) } : {}),
    ...(o.pendingTicketCancel
      ? { pendingTicketCancel: renderPendingCancel(o.pendingTicketCancel) }
      : {}),
  };
}

function renderOrderRecord(record: OrderRecord) {
  return {
    order: renderOrder(record.order),
    eventId: record.eventId,
    cartId: record.cartId,
    tickets: record.tickets.map((t) => ({
      ticketId: t.ticketId,
      seat: t.seat,
      areaId: t.areaId,
      section: t.section,
      row: t.row,
      priceLevelId: t.priceLevelId,
      priceTypeId: t.priceTypeId,
      ...amount('unitPrice', t.unitPrice),
      inventoryType: t.inventoryType,
      ...(t.cancelledAt ? { cancelledAt: t.cancelledAt.toISOString() } : {}),
    })),
  };
}

const usd = (amountMinor: number): Money => ({ amountMinor, currency: 'USD' });

/**
 * A confirmed order of two tickets paid through Stripe, as `renderOrderRecord` renders it: the
 * OpenAPI document's example of the order read (`GET /admin/v1/orders/{orderId}`).
 */
const ORDER_EXAMPLE = renderOrderRecord({
  order: {
    orderId: 'ord_7d3c1a9e52b04f6a',
    orderNumber: '12-34567/NYC',
    grandTotal: usd(11320),
    redemptionUrl: 'https://tickets.example.com/orders/ord_7d3c1a9e52b04f6a',
    status: 'CONFIRMED',
    confirmedAt: new Date('2030-04-01T12:04:31Z'),
    printed: false,
    payment: {
      provider: 'stripe',
      paymentId: 'pi_3PqExample0001',
      authorized: usd(11320),
      captured: usd(11320),
      refunds: [],
      refundPending: false,
      disputed: false,
      refusedRefunds: [],
    },
  },
  eventId: 'EVT000000000001',
  cartId: 'b2f5c7e0-4f1d-4c1e-9a51-1d2c3e4f5a6b',
  tickets: ['11', '12'].map((seat) => ({
    ticketId: `tkt_000000000001_FLR_C_${seat}`,
    seat,
    areaId: '1',
    section: 'FLR',
    row: 'C',
    priceLevelId: '1',
    priceTypeId: '000000000001',
    unitPrice: usd(5660),
    inventoryType: 'PRIMARY' as const,
  })),
});

/** What every order route may answer besides its own. */
const orderErrors = {
  400: AdminError,
  401: AdminError,
  404: AdminError,
  503: AdminError,
  504: AdminError,
};
const security = [{ adminToken: [] }];
const OrderParams = Type.Object({ orderId: Id });

/**
 * Orders (cart): read one order with its tickets, cancel a confirmed order, and record printing
 * of a confirmed order at the partner (or roll it back). The partner's cancel goes through
 * 3p-connector's durable queue when the partner is down (`partnerCancelQueued: true`); a print
 * action is the partner's at once, and answers 503 while the partner is down (nothing recorded:
 * retry). The order token never appears here.
 */
export function ordersAdminRoutes(backends: { partnerCart: PartnerCart }) {
  return async (scope: FastifyInstance): Promise<void> => {
    orderRoute(scope, backends);
    cancelOrderRoute(scope, backends);
    printOrderRoute(scope, backends);
  };
}

/** GET /orders/:orderId: one order with its tickets. */
function orderRoute(scope: FastifyInstance, backends: { partnerCart: PartnerCart }): void {
  scope.get(
    '/orders/:orderId',
    {
      schema: {
        tags: ['admin'],
        summary: 'One order with its tickets (404 when unknown)',
        security,
        params: OrderParams,
        response: {
          200: { ...OrderWithTickets, examples: [ORDER_EXAMPLE] },
          ...orderErrors,
        },
      },
    },
    async (request) =>
      renderOrderRecord(
        await backends.partnerCart.getOrder((request.params as { orderId: string }).orderId),
      ),
  );
}

/** POST /orders/:orderId/cancel: cancels an order or some of its tickets. */
function cancelOrderRoute(scope: FastifyInstance, backends: { partnerCart: PartnerCart }): void {
  scope.post(
    '/orders/:orderId/cancel',
    {
      preValidation: emptyBodyWhenAbsent,
      schema: {
        tags: ['admin'],
        summary:
          'Cancel a confirmed order, or some of its tickets; a whole cancel is queued and retried when the partner is down',
        description:
          'With `ticketIds`, only those tickets are cancelled, once the partner took it: they are then cancelled and refunded in one step. A partner that does not answer: `partnerCancelQueued` is true, the order comes back with `pendingTicketCancel` and its tickets still valid, and cart asks the partner again until it took or refused the cancel. 409 when the partner cancels whole orders only or refuses (nothing is cancelled or refunded), when another partial cancel of the order is still pending, or for a ticket cancelled already by another request (the same request again answers the order unchanged); 400 for a ticket the order does not have. Publishes `order-cancelled` (with the tickets of a partial cancel).',
        security,
        params: OrderParams,
        body: CancelBody,
        [OPTIONAL_BODY]: true,
        response: {
          200: Type.Object({
            order: Order,
            partnerCancelQueued: Type.Boolean(),
            tickets: Type.Array(OrderTicket, {
              description: 'The sold tickets, the cancelled ones with `cancelledAt`',
            }),
          }),
          ...orderErrors,
          409: AdminError,
        },
      },
    },
    async (request) => {
      const body = (request.body ?? {}) as {
        reason?: CancelReason;
        detail?: string;
        ticketIds?: string[];
      };
      const answer = await backends.partnerCart.cancelOrder(
        (request.params as { orderId: string }).orderId,
        body.reason ?? 'REQUESTED',
        body.detail ?? '',
        body.ticketIds ?? [],
      );
      return {
        order: renderOrder(answer.order),
        partnerCancelQueued: answer.partnerCancelQueued,
        tickets: renderOrderRecord({ ...answer, eventId: '', cartId: '' }).tickets,
      };
    },
  );
}

/** POST /orders/:orderId/print: records printing at the partner, or rolls it back. */
function printOrderRoute(scope: FastifyInstance, backends: { partnerCart: PartnerCart }): void {
  scope.post(
    '/orders/:orderId/print',
    {
      preValidation: emptyBodyWhenAbsent,
      schema: {
        tags: ['admin'],
        summary:
          'Record printing of a confirmed order at the partner, or roll it back; answers the order with its tickets',
        description:
          'The partner takes the action at once (no queue): 409 for an order that is not confirmed or an action the partner refuses (PRINT of a printed order, ROLLBACK_PRINT of one not printed), 503 while the partner is down (nothing recorded: retry). Publishes `order-printed`.',
        security,
        params: OrderParams,
        body: PrintBody,
        [OPTIONAL_BODY]: true, // no body: action PRINT
        response: {
          200: OrderWithTickets,
          ...orderErrors,
          409: AdminError,
        },
      },
    },
    async (request) => {
      const body = (request.body ?? {}) as { action?: PrintAction };
      return renderOrderRecord(
        await backends.partnerCart.printOrder(
          (request.params as { orderId: string }).orderId,
          body.action ?? 'PRINT',
        ),
      );
    },
  );
}
