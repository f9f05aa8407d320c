import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import {
  ConnectorServiceClient,
  ListOrdersRequest,
  OrderActionType,
  PartnerOrderStatus,
  type PartnerOrder,
} from '@marquee/proto/partner/v1';
import type { PartnerConnector } from '../app/ports.js';
import type { PartnerStatus, PartnerTransaction } from '../domain/decision.js';

const STATUSES: Partial<Record<PartnerOrderStatus, PartnerStatus>> = {
  [PartnerOrderStatus.PARTNER_ORDER_STATUS_BOOKED]: 'BOOKED',
  [PartnerOrderStatus.PARTNER_ORDER_STATUS_RELEASED]: 'RELEASED',
  [PartnerOrderStatus.PARTNER_ORDER_STATUS_EXPIRED]: 'EXPIRED',
  [PartnerOrderStatus.PARTNER_ORDER_STATUS_CONFIRMED]: 'CONFIRMED',
  [PartnerOrderStatus.PARTNER_ORDER_STATUS_PRINTED]: 'PRINTED',
  [PartnerOrderStatus.PARTNER_ORDER_STATUS_CANCELLED]: 'CANCELLED',
};

export function toPartnerTransaction(order: PartnerOrder): PartnerTransaction {
  return {
    partnerId: order.partnerId,
    eventId: order.eventId,
    inventoryToken: order.inventoryToken,
    ...(order.inventoryOrderId ? { inventoryOrderId: order.inventoryOrderId } : {}),
    status: STATUSES[order.status] ?? 'UNKNOWN',
    ...(order.cartId ? { cartId: order.cartId } : {}),
    ...(order.orderId ? { orderId: order.orderId } : {}),
    ...(order.createdAt ? { createdAt: order.createdAt } : {}),
    ...(order.updatedAt ? { updatedAt: order.updatedAt } : {}),
  };
}

/** 3p-connector's ConnectorService as the reconciler's PartnerConnector port. Errors arrive as kinds. */
export function createConnectorClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): PartnerConnector & { close(): void } {
  const client = createGrpcClient(ConnectorServiceClient, address, options);
  return {
    async listOrders(query) {
      const request = ListOrdersRequest.fromPartial(
        'inventoryToken' in query
          ? { eventId: query.eventId, inventoryToken: query.inventoryToken }
          : { eventId: query.eventId, startTime: query.start, endTime: query.end },
      );
      const { orders } = await callUnary(client, 'listOrders', request);
      return orders.map(toPartnerTransaction);
    },
    async releaseBooking(eventId, inventoryToken) {
      await callUnary(client, 'releaseBooking', { eventId, inventoryToken });
    },
    async cancelOrder({ eventId, inventoryOrderId, orderId }) {
      const answer = await callUnary(client, 'orderAction', {
        eventId,
        inventoryOrderId,
        action: OrderActionType.ORDER_ACTION_TYPE_CANCEL,
        orderId: orderId ?? '',
        language: '',
        channelType: '',
        printMessages: [],
        ticketIds: [],
      });
      return { queued: answer.queued };
    },
    close: () => client.close(),
  };
}
