import { unary } from '@marquee/platform/grpc';
import type { GrpcRegistration } from '@marquee/platform/service';
import { partnerV1 } from '@marquee/proto';
import type { ConnectorRuntime } from '../../app/runtime.js';

/** `marquee.partner.v1.ConnectorService` (cart and reconciler) over the runtime use cases. */
export function connectorGrpc(runtime: ConnectorRuntime): GrpcRegistration {
  const implementation: partnerV1.ConnectorServiceServer = {
    createBooking: unary((request: partnerV1.CreateBookingRequest, options) =>
      runtime.createBooking(request, options),
    ),
    releaseBooking: unary(async (request: partnerV1.ReleaseBookingRequest, options) => {
      await runtime.releaseBooking(request, options);
      return {};
    }),
    createOrder: unary((request: partnerV1.CreateOrderRequest, options) =>
      runtime.createOrder(request, options),
    ),
    getAvailability: unary((request: partnerV1.GetAvailabilityRequest, options) =>
      runtime.getAvailability(request, options),
    ),
    orderAction: unary((request: partnerV1.OrderActionRequest, options) =>
      runtime.orderAction(request, options),
    ),
    getOrder: unary((request: partnerV1.GetOrderRequest, options) =>
      runtime.getOrder(request, options),
    ),
    listOrders: unary((request: partnerV1.ListOrdersRequest, options) =>
      runtime.listOrders(request, options),
    ),
    verifyAccessCode: unary((request: partnerV1.VerifyAccessCodeRequest) =>
      runtime.verifyAccessCode(request),
    ),
  };
  return {
    definition: partnerV1.ConnectorServiceService,
    implementation,
  };
}
