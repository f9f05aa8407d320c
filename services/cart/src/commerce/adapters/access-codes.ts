import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { ConnectorServiceClient } from '@marquee/proto/partner/v1';
import type { AccessCodes } from '../app/commerce-app.js';

/** 3p-connector's VerifyAccessCode as the commerce AccessCodes port. The code is never logged. */
export function createAccessCodesClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): AccessCodes & { close(): void } {
  const client = createGrpcClient(ConnectorServiceClient, address, options);
  return {
    async priceTypesOpenedBy(eventId, code) {
      return (await callUnary(client, 'verifyAccessCode', { eventId, code })).priceTypeIds;
    },
    close: () => client.close(),
  };
}
