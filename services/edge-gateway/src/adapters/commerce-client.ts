import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { CommerceServiceClient } from '@marquee/proto/cart/v1';
import type { CommerceBackend } from '../app/commerce.js';

/** cart's CommerceService over gRPC, as the edge's CommerceBackend port. Errors arrive as AppError kinds. */
export function createCommerceClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): CommerceBackend & { close(): void } {
  const client = createGrpcClient(CommerceServiceClient, address, options);
  return {
    getEventOffers: (request) => callUnary(client, 'getEventOffers', request),
    createShoppingCart: (request) => callUnary(client, 'createShoppingCart', request),
    getShoppingCart: (request) => callUnary(client, 'getShoppingCart', request),
    async deleteShoppingCart(request) {
      await callUnary(client, 'deleteShoppingCart', request);
    },
    updateShoppingCartProducts: (request) =>
      callUnary(client, 'updateShoppingCartProducts', request),
    selectShoppingCartDelivery: (request) =>
      callUnary(client, 'selectShoppingCartDelivery', request),
    addShoppingCartPayment: (request) => callUnary(client, 'addShoppingCartPayment', request),
    purchaseShoppingCart: (request) => callUnary(client, 'purchaseShoppingCart', request),
    getCartDeliveries: (request) => callUnary(client, 'getCartDeliveries', request),
    close: () => client.close(),
  };
}
