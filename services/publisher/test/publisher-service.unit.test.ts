import { credentials, status, type Server } from '@grpc/grpc-js';
import { createMemoryBus, type IncomingEvent } from '@marquee/platform/bus';
import {
  callUnary,
  createGrpcClient,
  createGrpcServer,
  startGrpcServer,
  stopGrpcServer,
} from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { metricValue, waitFor } from '@marquee/platform/testing';
import type { ServiceParts } from '@marquee/platform/service';
import { publishingV1, type catalogV1 } from '@marquee/proto';
import { eventChangedTopic } from '@marquee/proto/topics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publisherService } from '../src/index.js';
import { composePublisher } from '../src/service.js';
import { loadPublisherConfig } from '../src/config.js';

/**
 * The whole service as the embedded default runs it (memory store, memory bus), called over real
 * gRPC: messages, status codes with the publishing error items in the details, and event-changed.
 */
describe('publisher over gRPC (memory adapters)', () => {
  const logger = createLogger({ service: 'publisher-test', level: 'silent' });
  const bus = createMemoryBus({ source: '//marquee/publisher', logger });
  const received: IncomingEvent<catalogV1.EventChanged>[] = [];
  let parts: ServiceParts;
  let server: Server;
  let sut: InstanceType<typeof publishingV1.PublisherServiceClient>;
  let address: string;

  beforeAll(async () => {
    parts = await composePublisher(
      { name: 'publisher', logger, bus, mongo: undefined },
      loadPublisherConfig({}),
    );
    server = createGrpcServer({
      logger,
      services: parts.grpc!,
      callers: publisherService.callers!,
    });
    const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
    await bus.subscribe(eventChangedTopic, { group: 'test' }, async (event) => {
      received.push(event);
    });
    await bus.start();
    await parts.start?.();
    // The edge is the only service that may publish for an app (service auth).
    sut = createGrpcClient(publishingV1.PublisherServiceClient, `127.0.0.1:${port}`, {
      caller: 'edge-gateway',
    });
    address = `127.0.0.1:${port}`;
  });

  afterAll(async () => {
    sut?.close();
    await parts?.stop?.();
    await bus.close();
    if (server) await stopGrpcServer(server, 1_000);
  });

  const publish = publishingV1.PublishEventRequest.fromPartial;
  const update = publishingV1.UpdateEventRequest.fromPartial;
  const remove = publishingV1.DeleteEventRequest.fromPartial;
  const event = { source: { id: 'acme', name: 'Acme' }, venue: { id: 'KovZpZAEdFtJ' }, version: 1 };

  it('publishes, answers the generated id, and emits event-changed', async () => {
    const answer = await callUnary(
      sut,
      'publishEvent',
      publish({
        appId: 'app-1',
        apiVersion: 'v2',
        event: { ...event, names: { 'en-us': 'Gala' }, extra: { 'a.b': [1] } },
      }),
    );

    expect(answer).toMatchObject({
      status: publishingV1.PublicationStatus.PUBLICATION_STATUS_SUCCESS_WARNING,
      unknownProperties: { extra: { 'a.b': [1] } },
      version: 1,
    });
    expect(answer.id).toMatch(/^[A-Za-z0-9]{15}$/);
    await waitFor(() => received.some((r) => r.key === answer.id));
    const record = received.find((r) => r.key === answer.id)!;
    expect(record.value?.event).toMatchObject({
      id: answer.id,
      names: { values: { 'en-us': 'Gala' } },
    });
  });

  it('refuses to publish for an app unless the caller is the edge (which resolved the app from its key)', async () => {
    // Any other Marquee service: authenticated, but not allowed to assert an app id.
    const deals = createGrpcClient(publishingV1.PublisherServiceClient, address, {
      caller: 'deals',
    });
    await expect(
      callUnary(deals, 'publishEvent', publish({ appId: 'app-1', event })),
    ).rejects.toMatchObject({ kind: 'permission_denied' });
    deals.close();
    // No service token at all: a caller from outside the platform.
    const outsider = new publishingV1.PublisherServiceClient(address, credentials.createInsecure());
    const code = await new Promise<number | undefined>((resolve) =>
      outsider.publishEvent(publish({ appId: 'app-1', event }), (error) => resolve(error?.code)),
    );
    outsider.close();
    expect(code).toBe(status.UNAUTHENTICATED);
  });

  it('rejects with INVALID_ARGUMENT carrying the error items', async () => {
    const failure = await callUnary(
      sut,
      'publishEvent',
      publish({
        appId: 'app-1',
        apiVersion: 'v2',
        event: { ...event, id: 'mine' },
      }),
    ).catch((error: unknown) => error);

    expect(failure).toMatchObject({
      kind: 'invalid_argument',
      details: {
        errors: [
          {
            status: 'Rejected',
            code: 'ID_NOT_ALLOWED',
            invalidProperties: { id: 'must not be provided' },
          },
        ],
      },
    });
  });

  it('answers a retry with the same Idempotency-Key and event with the first outcome', async () => {
    const key = 'retry-key-1';
    const posted = { ...event, names: { 'en-us': 'Once' } };
    const first = await callUnary(
      sut,
      'publishEvent',
      publish({ appId: 'app-1', apiVersion: 'v2', event: posted, idempotencyKey: key }),
    );
    // The same JSON with its keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(posted).reverse());
    const retry = await callUnary(
      sut,
      'publishEvent',
      publish({ appId: 'app-1', apiVersion: 'v2', event: reordered, idempotencyKey: key }),
    );

    expect(retry).toEqual(first);
    // Another app's key of the same name is its own.
    const otherApp = await callUnary(
      sut,
      'publishEvent',
      publish({ appId: 'app-2', apiVersion: 'v2', event: posted, idempotencyKey: key }),
    );
    expect(otherApp.id).not.toBe(first.id);
    await waitFor(() => received.some((r) => r.key === otherApp.id));
    expect(received.filter((r) => r.key === first.id)).toHaveLength(1);
  });

  it('refuses the same Idempotency-Key with another event (idempotency-key-reused)', async () => {
    const key = 'retry-key-2';
    await callUnary(
      sut,
      'publishEvent',
      publish({ appId: 'app-1', apiVersion: 'v2', event, idempotencyKey: key }),
    );
    await expect(
      callUnary(
        sut,
        'publishEvent',
        publish({
          appId: 'app-1',
          apiVersion: 'v2',
          event: { ...event, version: 2 },
          idempotencyKey: key,
        }),
      ),
    ).rejects.toMatchObject({
      kind: 'failed_precondition',
      details: { reason: 'idempotency-key-reused' },
    });
  });

  it('answers a retried rejection with the same error items', async () => {
    const request = publish({
      appId: 'app-1',
      apiVersion: 'v2',
      event: { ...event, id: 'mine' },
      idempotencyKey: 'retry-key-3',
    });
    const first = await callUnary(sut, 'publishEvent', request).catch((error: unknown) => error);
    const retry = await callUnary(sut, 'publishEvent', request).catch((error: unknown) => error);
    expect(first).toMatchObject({ kind: 'invalid_argument' });
    expect(retry).toMatchObject({
      kind: 'invalid_argument',
      details: (first as { details: unknown }).details,
    });
  });

  it("lists the app's events a page at a time, newest first, for the edge only", async () => {
    const list = publishingV1.ListEventsRequest.fromPartial;
    const ids: string[] = [];
    for (const name of ['First', 'Second']) {
      const answer = await callUnary(
        sut,
        'publishEvent',
        publish({ appId: 'app-list', event: { ...event, names: { 'en-us': name } } }),
      );
      ids.push(answer.id);
      // Publication instants are milliseconds: keep the two apart so the order is by time.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }

    const first = await callUnary(sut, 'listEvents', list({ appId: 'app-list', pageSize: 1 }));
    expect(first.events).toEqual([
      {
        id: ids[1],
        event: { ...event, names: { 'en-us': 'Second' } },
        version: 1,
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
      },
    ]);
    const second = await callUnary(
      sut,
      'listEvents',
      list({ appId: 'app-list', pageSize: 1, pageToken: first.nextPageToken }),
    );
    expect(second.events.map((e) => e.id)).toEqual([ids[0]]);
    expect(second.nextPageToken).toBe('');

    await expect(
      callUnary(sut, 'listEvents', list({ appId: 'app-list', pageToken: 'bogus' })),
    ).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: { errors: [{ code: 'INVALID_CURSOR' }] },
    });
    const deals = createGrpcClient(publishingV1.PublisherServiceClient, address, {
      caller: 'deals',
    });
    await expect(callUnary(deals, 'listEvents', list({ appId: 'app-list' }))).rejects.toMatchObject(
      { kind: 'permission_denied' },
    );
    deals.close();
  });

  it('updates with a newer version, refuses a stale one, and deletes with a tombstone', async () => {
    const publications = async (operation: string) =>
      (await metricValue(`marquee_publications_total{operation="${operation}"}`)) ?? 0;
    const before = {
      publish: await publications('publish'),
      update: await publications('update'),
      delete: await publications('delete'),
    };
    const { id } = await callUnary(sut, 'publishEvent', publish({ appId: 'app-1', event }));

    const updated = await callUnary(
      sut,
      'updateEvent',
      update({
        appId: 'app-1',
        id,
        event: { ...event, version: 2 },
      }),
    );
    expect(updated).toMatchObject({ id, version: 2 });
    expect(
      await callUnary(
        sut,
        'getEvent',
        publishingV1.GetEventRequest.fromPartial({ appId: 'app-1', id }),
      ),
    ).toMatchObject({ id, version: 2, event: { ...event, version: 2 } });
    await expect(
      callUnary(
        sut,
        'updateEvent',
        update({ appId: 'app-1', id, event: { ...event, version: 2 } }),
      ),
    ).rejects.toMatchObject({ kind: 'aborted', details: { errors: [{ code: 'STALE_VERSION' }] } });
    await expect(
      callUnary(sut, 'deleteEvent', remove({ appId: 'app-2', id })),
    ).rejects.toMatchObject({
      kind: 'not_found',
    });

    await callUnary(sut, 'deleteEvent', remove({ appId: 'app-1', id, publisherVersion: 2 }));
    await expect(
      callUnary(sut, 'getEvent', publishingV1.GetEventRequest.fromPartial({ appId: 'app-1', id })),
    ).rejects.toMatchObject({ kind: 'not_found' });

    await waitFor(() => received.some((r) => r.key === id && r.value === null));
    const versions = received
      .filter((r) => r.key === id)
      .map((r) => r.value?.event?.version ?? null);
    expect(versions).toEqual([1, 2, null]);
    // What succeeded, each once: the stale update and the other app's delete are not counted.
    expect({
      publish: await publications('publish'),
      update: await publications('update'),
      delete: await publications('delete'),
    }).toEqual({
      publish: before.publish + 1,
      update: before.update + 1,
      delete: before.delete + 1,
    });
  });
});
