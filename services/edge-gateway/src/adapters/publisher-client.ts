import { publishingV1 } from '@marquee/proto';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import type { PublicationAnswer, Publishing } from '../app/publishing.js';

const answer = (response: publishingV1.PublishEventResponse): PublicationAnswer => ({
  status:
    response.status === publishingV1.PublicationStatus.PUBLICATION_STATUS_SUCCESS_WARNING
      ? 'SuccessWarning'
      : 'Success',
  message: response.message,
  id: response.id,
  missingProperties: response.missingProperties ?? {},
  unknownProperties: response.unknownProperties ?? {},
});

/**
 * publisher over gRPC, as the edge's Publishing port. The body travels as the JSON the publisher
 * posted (a Struct); errors arrive as AppError kinds with publisher's error items in `details`.
 */
export function createPublisherClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): Publishing & { close(): void } {
  const client = createGrpcClient(publishingV1.PublisherServiceClient, address, options);
  return {
    async publishEvent({ appId, event, idempotencyKey }) {
      const response = await callUnary(
        client,
        'publishEvent',
        publishingV1.PublishEventRequest.fromPartial({
          appId,
          apiVersion: 'v2',
          event,
          idempotencyKey: idempotencyKey ?? '',
        }),
      );
      return answer(response);
    },
    async updateEvent({ appId, id, event }) {
      const response = await callUnary(
        client,
        'updateEvent',
        publishingV1.UpdateEventRequest.fromPartial({ appId, apiVersion: 'v2', id, event }),
      );
      return answer(response);
    },
    async deleteEvent({ appId, id, publisherVersion }) {
      await callUnary(
        client,
        'deleteEvent',
        publishingV1.DeleteEventRequest.fromPartial({
          appId,
          apiVersion: 'v2',
          id,
          ...(publisherVersion === undefined ? {} : { publisherVersion }),
        }),
      );
    },
    async getEvent({ appId, id }) {
      const response = await callUnary(
        client,
        'getEvent',
        publishingV1.GetEventRequest.fromPartial({ appId, id }),
      );
      return response.event ?? {};
    },
    async listEvents({ appId, size, cursor }) {
      const response = await callUnary(
        client,
        'listEvents',
        publishingV1.ListEventsRequest.fromPartial({
          appId,
          pageSize: size ?? 0,
          pageToken: cursor ?? '',
        }),
      );
      const epoch = new Date(0);
      return {
        events: response.events.map((listed) => ({
          id: listed.id,
          event: listed.event ?? {},
          createdAt: listed.createdAt ?? epoch,
          updatedAt: listed.updatedAt ?? epoch,
        })),
        nextCursor: response.nextPageToken,
      };
    },
    close: () => client.close(),
  };
}
