import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AvailabilityChanged,
  CatalogServiceClient,
  Event,
  SearchEventsRequest,
  SearchEventsResponse,
  SyncScope,
} from '@marquee/proto/catalog/v1';
import {
  callUnary,
  createGrpcClient,
  createGrpcServer,
  startGrpcServer,
  stopGrpcServer,
} from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import type * as grpc from '@grpc/grpc-js';
import { createMemoryEventRecords } from '../../../src/adapters/memory-event-records.js';
import { createMemoryAvailabilityRecords } from '../../../src/adapters/availability-records.js';
import { Catalog } from '../../../src/app/catalog.js';
import { anEvent, text } from '../../builders.js';
import { discoveryDocuments } from '../../../src/adapters/discovery-documents.js';
import { protobufEventCodec } from '../../../src/adapters/protobuf-event-codec.js';
import { encodeEventsPage } from '@marquee/proto/catalog/v1/wire';
import { catalogIndexerService } from '../../../src/index.js';
import { catalogGrpc } from '../../../src/ports/grpc/catalog-grpc.js';
import {
  attractionMessageOf,
  eventMessageOf,
  venueMessageOf,
} from '../../../src/adapters/proto/catalog-messages.js';
import { eventQueryOf } from '../../../src/ports/grpc/search-mapping.js';
import { availabilityUpdateOf } from '../../../src/adapters/proto/kafka-messages.js';

/** Who may call the catalog: its ServiceDefinition's declaration. */
const callers = catalogIndexerService.callers!;
const logger = createLogger({ service: 'test', level: 'silent' });

/** The registration served on a free port, and a client of it calling as the edge. */
async function serveToEdge(registration: ReturnType<typeof catalogGrpc>) {
  const server = createGrpcServer({ logger, services: [registration], callers });
  const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
  const client = createGrpcClient(CatalogServiceClient, `127.0.0.1:${port}`, {
    deadlineMs: 10_000,
    caller: 'edge-gateway',
  });
  return { server, client };
}

describe('CatalogService over gRPC', () => {
  let server: grpc.Server;
  let sut: CatalogServiceClient;

  beforeAll(async () => {
    const catalog = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock: () => new Date('2026-01-01T00:00:00Z'),
      eventCodec: protobufEventCodec,
    });
    await catalog.applyEventChanged(
      'GRPC00000000001',
      anEvent({
        id: 'GRPC00000000001',
        names: text('Grpc Gala'),
        attractions: [
          { ref: { $case: 'id', value: 'K1' }, names: text('The Band'), resolvedId: '' },
        ],
      }),
    );
    server = createGrpcServer({ logger, services: [catalogGrpc(catalog)], callers });
    const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
    sut = createGrpcClient(CatalogServiceClient, `127.0.0.1:${port}`, {
      deadlineMs: 10_000,
      caller: 'edge-gateway',
    });
  });
  afterAll(async () => {
    sut?.close();
    await stopGrpcServer(server, 1_000);
  });

  it('answers a search with the page, the events and their venue and attractions once each', async () => {
    const answer = await callUnary(
      sut,
      'searchEvents',
      SearchEventsRequest.fromPartial({ keyword: 'gala' }),
    );
    expect(answer.events.map((e) => e.id)).toEqual(['GRPC00000000001']);
    expect(answer.page).toEqual({ offset: 0, limit: 20, total: 1 });
    expect(answer.venues).toHaveLength(1);
    expect(answer.venues[0]!.postalCode).toBe('10001');
    expect(answer.attractions.map((a) => a.id)).toEqual(['K1']);
    expect(answer.events[0]!.location).toMatchObject({
      $case: 'venue',
      value: { resolvedId: answer.venues[0]!.id },
    });
  });

  it('maps an unknown event to NOT_FOUND and a bad page size to INVALID_ARGUMENT', async () => {
    await expect(callUnary(sut, 'getEvent', { id: 'nope', locale: '' })).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(
      callUnary(
        sut,
        'searchEvents',
        SearchEventsRequest.fromPartial({ page: { offset: 0, limit: 900 } }),
      ),
    ).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });
});

describe('SearchEvents asked for documents', () => {
  it('answers with the rendered event documents, and with the events when it renders none', async () => {
    const clock = () => new Date('2026-01-01T00:00:00Z');
    const rendering = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock,
      eventCodec: protobufEventCodec,
      documents: discoveryDocuments,
    });
    const plain = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock,
      eventCodec: protobufEventCodec,
    });
    for (const catalog of [rendering, plain]) {
      for (const id of ['DOCS0000000001', 'DOCS0000000002']) {
        await catalog.applyEventChanged(id, anEvent({ id, names: text(`Docs Gala ${id}`) }));
      }
    }
    const servers = [rendering, plain].map((catalog) =>
      createGrpcServer({ logger, services: [catalogGrpc(catalog)], callers }),
    );
    const clients = [];
    for (const server of servers) {
      const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
      clients.push(
        createGrpcClient(CatalogServiceClient, `127.0.0.1:${port}`, {
          deadlineMs: 10_000,
          caller: 'edge-gateway',
        }),
      );
    }
    try {
      const request = SearchEventsRequest.fromPartial({ keyword: 'docs', documents: true });
      const [documents, events] = await Promise.all(
        clients.map((client) => callUnary(client, 'searchEvents', request)),
      );
      expect(documents!.events).toEqual([]);
      expect(documents!.page).toEqual({ offset: 0, limit: 20, total: 2 });
      const parsed = JSON.parse(`[${documents!.eventDocuments.toString()}]`) as {
        id: string;
        _embedded: { venues: unknown[] };
      }[];
      expect(parsed.map((d) => d.id)).toEqual(['DOCS0000000001', 'DOCS0000000002']);
      expect(parsed[0]!._embedded.venues).toHaveLength(1);
      // A catalog without a renderer answers as if not asked: the edge renders the events.
      expect(events!.eventDocuments).toHaveLength(0);
      expect(events!.events.map((e) => e.id)).toEqual(['DOCS0000000001', 'DOCS0000000002']);
    } finally {
      for (const client of clients) client.close();
      for (const server of servers) await stopGrpcServer(server, 1_000);
    }
  });
});

describe('availability in CatalogService answers', () => {
  it('carries sold-out availability on the encoded search path and the decoded one, and leaves it out of seats_available', async () => {
    // As the service composes it: events kept encoded, documents rendered.
    const catalog = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock: () => new Date('2026-01-01T00:00:00Z'),
      eventCodec: protobufEventCodec,
      documents: discoveryDocuments,
    });
    const soldOut = (eventId: string) =>
      availabilityUpdateOf(
        AvailabilityChanged.fromPartial({
          eventId,
          scope: SyncScope.SYNC_SCOPE_FULL,
          sequence: 1,
          totalAvailable: 0,
          areas: [{ areaId: 'A', available: 0, unavailable: 100 }],
        }),
      );
    // One sold out before it is indexed, one after, one with tickets.
    await catalog.applyAvailabilityChanged('AVAIL000000001', soldOut('AVAIL000000001'));
    for (const id of ['AVAIL000000001', 'AVAIL000000002', 'AVAIL000000003']) {
      await catalog.applyEventChanged(id, anEvent({ id, names: text(`Avail Gala ${id}`) }));
    }
    await catalog.applyAvailabilityChanged('AVAIL000000002', soldOut('AVAIL000000002'));
    const { server, client } = await serveToEdge(catalogGrpc(catalog));
    const expected = {
      AVAIL000000001: { soldOut: true },
      AVAIL000000002: { soldOut: true },
      AVAIL000000003: undefined,
    };
    const availabilities = (
      events: readonly { id: string; availability?: { soldOut: boolean } | undefined }[],
    ) => Object.fromEntries(events.map((e) => [e.id, e.availability]));
    try {
      const request = SearchEventsRequest.fromPartial({ keyword: 'avail' });
      // In process: the encoded hits (what the gRPC port writes as they are) and the decoded ones.
      const encoded = catalog
        .searchEventsEncoded(eventQueryOf(request))
        .items.map((h) => Event.decode(h.encoded));
      expect(availabilities(encoded)).toEqual(expected);
      expect(
        availabilities(catalog.searchEvents(eventQueryOf(request)).items.map((h) => h.event)),
      ).toEqual(expected);
      // Over gRPC: SearchEvents answers from the encoded events, GetEvent through ts-proto.
      const searched = await callUnary(client, 'searchEvents', request);
      expect(availabilities(searched.events)).toEqual(expected);
      for (const [id, availability] of Object.entries(expected)) {
        const got = await callUnary(client, 'getEvent', { id, locale: '' });
        expect(got.event?.availability).toEqual(availability);
      }
      const seats = await callUnary(
        client,
        'searchEvents',
        SearchEventsRequest.fromPartial({ keyword: 'avail', seatsAvailable: true }),
      );
      expect(seats.events.map((e) => e.id)).toEqual(['AVAIL000000003']);
      expect(seats.page?.total).toBe(1);
      // The documents answer still holds every event (a re-packed one included), whole.
      const documents = await callUnary(
        client,
        'searchEvents',
        SearchEventsRequest.fromPartial({ keyword: 'avail', documents: true }),
      );
      const parsed = JSON.parse(`[${documents.eventDocuments.toString()}]`) as { id: string }[];
      expect(parsed.map((d) => d.id)).toEqual(Object.keys(expected));
    } finally {
      client.close();
      await stopGrpcServer(server, 1_000);
    }
  });
});

describe('SearchEvents from the encodings the index keeps', () => {
  it('writes events kept encoded so that they decode as ts-proto encodes the whole response', async () => {
    const catalog = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      clock: () => new Date('2026-01-01T00:00:00Z'),
      eventCodec: protobufEventCodec,
    });
    // Events large enough that their length needs a two-byte varint, and one that does not.
    for (const [id, name] of [
      ['ENC00000000001', 'Encoded Gala'],
      ['ENC00000000002', `Encoded Gala ${'long '.repeat(60)}`],
    ] as const) {
      await catalog.applyEventChanged(id, anEvent({ id, names: text(name) }));
    }
    const query = eventQueryOf(SearchEventsRequest.fromPartial({ keyword: 'encoded' }));
    const encoded = catalog.searchEventsEncoded(query);
    const decoded = catalog.searchEvents(query);
    expect(encoded.items.some((hit) => hit.encoded.length > 127)).toBe(true);

    const wire = encodeEventsPage({
      events: encoded.items.map((hit) => hit.encoded),
      venues: encoded.items.map((hit) => hit.venue!.encoded),
      attractions: encoded.items.flatMap((hit) => hit.attractions.map((a) => a.encoded)),
      page: { offset: 0, limit: 20, total: encoded.total },
    });

    const expected = SearchEventsResponse.fromPartial({
      events: decoded.items.map((hit) => eventMessageOf(hit.event)),
      page: { offset: 0, limit: 20, total: decoded.total },
      venues: decoded.items.map((hit) => venueMessageOf(hit.venue!)),
      attractions: decoded.items.flatMap((hit) => hit.attractions.map(attractionMessageOf)),
    });
    expect(expected.venues.length).toBeGreaterThan(0);
    expect(SearchEventsResponse.decode(wire)).toEqual(expected);
    expect(SearchEventsResponse.decode(wire).events.map((e) => e.id)).toEqual([
      'ENC00000000001',
      'ENC00000000002',
    ]);
  });
});

describe('WatchChanges', () => {
  it('sends the current sequence at once, then the latest after changes (coalesced), and ends on close', async () => {
    const catalog = new Catalog({
      records: createMemoryEventRecords(),
      availability: createMemoryAvailabilityRecords(),
      eventCodec: protobufEventCodec,
    });
    await catalog.applyEventChanged('WATCH000000001', anEvent({ id: 'WATCH000000001' }));
    const registration = catalogGrpc(catalog);
    const { server, client } = await serveToEdge(registration);
    try {
      const stream = client.watchChanges({});
      const received: { instance: string; sequence: number }[] = [];
      const ended = new Promise<void>((resolve) => {
        stream.on('end', resolve);
        stream.on('error', () => resolve());
      });
      const next = (count: number) =>
        new Promise<void>((resolve) => {
          const check = () => {
            if (received.length >= count) {
              stream.off('data', onData);
              resolve();
            }
          };
          const onData = (m: { instance: string; sequence: number }) => {
            received.push(m);
            check();
          };
          stream.on('data', onData);
          check();
        });

      await next(1);
      expect(received[0]!.sequence).toBe(1);
      // Three changes in one turn: one message with the latest sequence.
      await Promise.all(
        ['WATCH000000002', 'WATCH000000003', 'WATCH000000004'].map((id) =>
          catalog.applyEventChanged(id, anEvent({ id })),
        ),
      );
      await next(2);
      expect(received.at(-1)!.sequence).toBe(4);
      expect(received.length).toBeLessThan(4);
      expect(new Set(received.map((m) => m.instance)).size).toBe(1);

      registration.close();
      await ended;
    } finally {
      client.close();
      await stopGrpcServer(server, 1_000);
    }
  });
});
