import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { CartServiceClient } from '@marquee/proto/cart/v1';
import type { StripeWebhookSink } from '../app/stripe-webhooks.js';

/** Cart's HandleStripeEvent over gRPC. */
export function createStripeWebhookClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): StripeWebhookSink & { close(): void } {
  const client = createGrpcClient(CartServiceClient, address, options);
  return {
    async handleStripeEvent(event) {
      const answer = await callUnary(client, 'handleStripeEvent', event);
      return { duplicate: answer.duplicate, outcome: answer.outcome };
    },
    close: () => client.close(),
  };
}
