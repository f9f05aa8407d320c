import { createHash } from 'node:crypto';
import type { Idempotency } from '@marquee/platform/idempotency';
import { metrics } from '@marquee/platform/metrics';
import { publishingV1 } from '@marquee/proto';
import stableStringify from 'safe-stable-stringify';
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
 * What the idempotency record compares a retry with: the operation and the event as canonical JSON
 * (keys sorted), so the same body re-serialised in another key order is the same request.
 */
const publishRequestBytes = (request: publishingV1.PublishEventRequest): Uint8Array =>
  new TextEncoder().encode(
    `PublishEvent\u0000${stableStringify({ apiVersion: request.apiVersion, event: request.event ?? {} })}`,
  );

/** The key as the created event keeps it: a digest, never the caller's key itself. */
const publicationKeyOf = (appId: string, key: string): string =>
  createHash('sha256').update(`${appId}\u0000${key}`).digest('base64url');

/**
 * `marquee.publishing.v1.PublisherService`: maps messages to the use cases and back. The event
 * travels as a Struct, i.e. the JSON the publisher posted. Errors carry a `kind` and
 * `details.errors` (the publishing error items); the platform's server turns the kind into the status
 * code and the details into `x-error-details`, which the edge renders as the publishing error body.
 * A publication with an `idempotency_key` runs once per app and key: a retry answers the first
 * outcome (platform idempotency records, see README "Idempotency-Key").
 */
/**
 * Events published, updated and deleted by apps (answered successfully; an idempotent retry that
 * answers the first outcome counts again).
 */
const publications = metrics.counter('marquee_publications', {
  description: 'Event publications by apps that succeeded, by operation',
});

export function publisherServiceImplementation(
  publishing: Publishing,
  idempotency: Idempotency,
): publishingV1.PublisherServiceServer {
  return {
    publishEvent: (async (call: { request: publishingV1.PublishEventRequest }, callback) => {
      const request = call.request;
      const { appId, event, idempotencyKey } = request;
      const publish = async () => toResponse(await publishing.publish({ appId, body: event }));
      // Without the app there is nothing to scope a key to: the use case refuses the call.
      if (!appId || !idempotencyKey) {
        const response = await publish();
        publications.add(1, { operation: 'publish' });
        return callback(null, response);
      }
      const response = await idempotency.run(
        {
          scope: appId,
          key: idempotencyKey,
          request: publishRequestBytes(request),
          encode: (answer) => publishingV1.PublishEventResponse.encode(answer).finish(),
          decode: (bytes) => publishingV1.PublishEventResponse.decode(bytes),
        },
        async () =>
          toResponse(
            await publishing.publish({
              appId,
              body: event,
              publicationKey: publicationKeyOf(appId, idempotencyKey),
            }),
          ),
      );
      publications.add(1, { operation: 'publish' });
      callback(null, response);
    }) as publishingV1.PublisherServiceServer['publishEvent'],
    updateEvent: (async (call: { request: publishingV1.UpdateEventRequest }, callback) => {
      const { appId, id, event } = call.request;
      const response = toResponse(await publishing.update({ appId, id, body: event }));
      publications.add(1, { operation: 'update' });
      callback(null, response);
    }) as publishingV1.PublisherServiceServer['updateEvent'],
    deleteEvent: (async (call: { request: publishingV1.DeleteEventRequest }, callback) => {
      const { appId, id, publisherVersion } = call.request;
      await publishing.remove({
        appId,
        id,
        ...(publisherVersion === undefined ? {} : { publisherVersion }),
      });
      publications.add(1, { operation: 'delete' });
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
    listEvents: (async (call: { request: publishingV1.ListEventsRequest }, callback) => {
      const { appId, pageSize, pageToken } = call.request;
      const page = await publishing.list({ appId, pageSize, pageToken });
      callback(null, {
        events: page.events.map((event) => ({
          id: event.id,
          event: event.body,
          version: event.version,
          createdAt: event.createdAt,
          updatedAt: event.updatedAt,
        })),
        nextPageToken: page.nextPageToken,
      });
    }) as publishingV1.PublisherServiceServer['listEvents'],
  };
}
