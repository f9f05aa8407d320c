import { partnerV1 } from '@marquee/proto';
import type {
  HeldTicket,
  OrderActionCall,
  OrderActionType,
  PartnerOrder,
  PartnerOrderStatus,
} from '../../app/connector-calls.js';

const ACTIONS: Partial<Record<partnerV1.OrderActionType, OrderActionType>> = {
  [partnerV1.OrderActionType.ORDER_ACTION_TYPE_PRINT]: 'PRINT',
  [partnerV1.OrderActionType.ORDER_ACTION_TYPE_ROLLBACK_PRINT]: 'ROLLBACK_PRINT',
  [partnerV1.OrderActionType.ORDER_ACTION_TYPE_CANCEL]: 'CANCEL',
};

const STATUSES: Record<PartnerOrderStatus, partnerV1.PartnerOrderStatus> = {
  UNSPECIFIED: partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_UNSPECIFIED,
  BOOKED: partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_BOOKED,
  RELEASED: partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_RELEASED,
  EXPIRED: partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_EXPIRED,
  CONFIRMED: partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_CONFIRMED,
  PRINTED: partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_PRINTED,
  CANCELLED: partnerV1.PartnerOrderStatus.PARTNER_ORDER_STATUS_CANCELLED,
};

/** An OrderAction request as the runtime takes it (an action it does not know: undefined). */
export const toOrderActionCall = (request: partnerV1.OrderActionRequest): OrderActionCall => ({
  eventId: request.eventId,
  inventoryOrderId: request.inventoryOrderId,
  action: ACTIONS[request.action],
  orderId: request.orderId,
  language: request.language,
  channelType: request.channelType,
  printMessages: request.printMessages ?? [],
  ticketIds: request.ticketIds ?? [],
});

export const toHeldTicketMessage = (ticket: HeldTicket): partnerV1.HeldTicket => ({ ...ticket });

export const toPartnerOrderMessage = (order: PartnerOrder): partnerV1.PartnerOrder => ({
  ...order,
  status: STATUSES[order.status],
  tickets: order.tickets.map(toHeldTicketMessage),
});
