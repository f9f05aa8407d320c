import { publishingV1 } from '@marquee/proto';
import type { Publishing } from '../../app/publishing.js';
import type { PublicationResult } from '../../domain/published-event.js';

const STATUS = {
  Success: publishingV1.PublicationStatus.PUBLICATION_STATUS_SUCCESS,
  SuccessWarning: publishingV1.PublicationStatus.PUBLICATION_STATUS_SUCCESS_WARNING,
} as const;

const toResponse = (result: PublicationResult): publishingV1.PublishEventResponse => ({
  status: STATUS[result.status],
  message: result.message ?? '',
  id: result.id,
  missingProperties: result.missingProperties,
  unknownProperties: result.unknownProperties,
  version: result.version,
});

/**
 * `marquee.publishing.v1.PublisherService`: maps messages to the use cases and back. The event
 * travels as a Struct, i.e. the JSON the publisher posted. Errors carry a `kind` and
 * `details.errors` (the spec 01 error items); the platform's server turns the kind into the status
 * code and the details into `x-error-details`, which the edge renders as the publishing error body.
 */
export function publisherServiceImplementation(
  publishing: Publishing,
): publishingV1.PublisherServiceServer {
  return {
    publishEvent: (async (call: { request: publishingV1.PublishEventRequest }, callback) => {
      const { appId, event } = call.request;
      callback(null, toResponse(await publishing.publish({ appId, body: event })));
    }) as publishingV1.PublisherServiceServer['publishEvent'],
    updateEvent: (async (call: { request: publishingV1.UpdateEventRequest }, callback) => {
      const { appId, id, event } = call.request;
      callback(null, toResponse(await publishing.update({ appId, id, body: event })));
    }) as publishingV1.PublisherServiceServer['updateEvent'],
    deleteEvent: (async (call: { request: publishingV1.DeleteEventRequest }, callback) => {
      const { appId, id, publisherVersion } = call.request;
      await publishing.remove({
        appId,
        id,
        ...(publisherVersion === undefined ? {} : { publisherVersion }),
      });
      callback(null, { id });
    }) as publishingV1.PublisherServiceServer['deleteEvent'],
    getEvent: (async (call: { request: publishingV1.GetEventRequest }, callback) => {
      const event = await publishing.get(call.request);
      callback(null, {
        id: event.id,
        event: event.body,
        version: event.version,
        createdAt: event.createdAt,
        updatedAt: event.updatedAt,
      });
    }) as publishingV1.PublisherServiceServer['getEvent'],
  };
}
