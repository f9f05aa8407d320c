import { unary } from '@marquee/platform/grpc';
import type { GrpcRegistration } from '@marquee/platform/service';
import { partnerV1 } from '@marquee/proto';
import type { ConnectorRuntime } from '../../app/runtime.js';
import {
  toHeldTicketMessage,
  toOrderActionCall,
  toPartnerOrderMessage,
} from './connector-messages.js';

/** `marquee.partner.v1.ConnectorService` (cart and reconciler) over the runtime use cases. */
export function connectorGrpc(runtime: ConnectorRuntime): GrpcRegistration {
  const implementation: partnerV1.ConnectorServiceServer = {
    createBooking: unary(async (request: partnerV1.CreateBookingRequest, options) => {
      const held = await runtime.createBooking(
        {
          eventId: request.eventId,
          cartId: request.cartId,
          lines: request.lines.map((line) => ({ ...line })),
          language: request.language,
          channelType: request.channelType,
        },
        options,
      );
      return { ...held, tickets: held.tickets.map(toHeldTicketMessage) };
    }),
    releaseBooking: unary(async (request: partnerV1.ReleaseBookingRequest, options) => {
      await runtime.releaseBooking(
        { eventId: request.eventId, inventoryToken: request.inventoryToken },
        options,
      );
      return {};
    }),
    createOrder: unary(async (request: partnerV1.CreateOrderRequest, options) => {
      const confirmed = await runtime.createOrder({ ...request }, options);
      return { ...confirmed, tickets: confirmed.tickets.map(toHeldTicketMessage) };
    }),
    getAvailability: unary((request: partnerV1.GetAvailabilityRequest, options) =>
      runtime.getAvailability({ ...request }, options),
    ),
    orderAction: unary(async (request: partnerV1.OrderActionRequest, options) => {
      const { order, queued } = await runtime.orderAction(toOrderActionCall(request), options);
      return { order: order && toPartnerOrderMessage(order), queued };
    }),
    getOrder: unary(async (request: partnerV1.GetOrderRequest, options) => {
      const { order } = await runtime.getOrder(
        { eventId: request.eventId, inventoryOrderId: request.inventoryOrderId },
        options,
      );
      return { order: toPartnerOrderMessage(order) };
    }),
    listOrders: unary(async (request: partnerV1.ListOrdersRequest, options) => {
      const { orders } = await runtime.listOrders({ ...request }, options);
      return { orders: orders.map(toPartnerOrderMessage) };
    }),
    verifyAccessCode: unary((request: partnerV1.VerifyAccessCodeRequest) =>
      runtime.verifyAccessCode({ eventId: request.eventId, code: request.code }),
    ),
  };
  return {
    definition: partnerV1.ConnectorServiceService,
    implementation,
  };
}
