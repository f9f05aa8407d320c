import { randomUUID } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import {
  CatalogServiceService,
  type CatalogServiceServer,
  type DiscoveryAttraction,
  type DiscoveryVenue,
  type SearchEventsRequest,
  type WatchChangesRequest,
  type WatchChangesResponse,
} from '@marquee/proto/catalog/v1';
import { documentsPageHead, encodeEventsPage } from '@marquee/proto/catalog/v1/wire';
import { Utf8Writer, writeEventDocument } from '@marquee/discovery-documents';
import { OnePerTurn, unary as unaryHandler } from '@marquee/platform/grpc';
import type { GrpcRegistration } from '@marquee/platform/service';
import type { Catalog } from '../../app/catalog.js';
import type { Page } from '../../domain/catalog-index.js';
import type { Attraction, Venue } from '../../domain/model.js';
import {
  attractionMessageOf,
  eventMessageOf,
  segmentMessageOf,
  venueMessageOf,
} from '../../adapters/proto/catalog-messages.js';
import {
  attractionQueryOf,
  classificationQueryOf,
  eventQueryOf,
  venueQueryOf,
} from './search-mapping.js';

/** Runs a synchronous query one per turn; a thrown domain error reaches the client with its status. */
const unary = <Req, Res>(turns: OnePerTurn, answer: (request: Req) => Res) =>
  unaryHandler(answer, { turns });

const pageInfo = (page: Page<unknown>) => ({
  offset: page.offset,
  limit: page.limit,
  total: page.total,
});

/** Collects each venue and attraction of a page once, so the edge can embed them. */
function embedded(hits: readonly { venue?: Venue | undefined; attractions: Attraction[] }[]): {
  venues: DiscoveryVenue[];
  attractions: DiscoveryAttraction[];
} {
  const venues = new Map<string, Venue>();
  const attractions = new Map<string, Attraction>();
  for (const hit of hits) {
    if (hit.venue) venues.set(hit.venue.id, hit.venue);
    for (const a of hit.attractions) attractions.set(a.id, a);
  }
  return {
    venues: [...venues.values()].map(venueMessageOf),
    attractions: [...attractions.values()].map(attractionMessageOf),
  };
}

/**
 * CatalogService over gRPC: maps and delegates to the catalog, nothing more (requests to queries:
 * search-mapping.ts; records to messages: catalog-messages.ts). `close()` ends the open
 * WatchChanges streams (the server waits for open calls when it stops).
 */
export function catalogGrpc(catalog: Catalog): GrpcRegistration & { close(): void } {
  const instance = randomUUID();
  const turns = new OnePerTurn();
  const watchers = new Set<Watcher>();
  const watchChanges = changeWatcher(catalog, instance, watchers);
  /**
   * SearchEvents answers its response already serialised (the wire codec of
   * @marquee/proto/catalog/v1/wire), so its method is declared with a Buffer response that is
   * written as it is; every other method is ts-proto's.
   */
  const searchEvents: grpc.handleUnaryCall<SearchEventsRequest, Buffer> = unary(
    turns,
    (request: SearchEventsRequest): Buffer => encodedEventsPage(catalog, request),
  );
  const implementation: Omit<CatalogServiceServer, 'searchEvents'> & {
    searchEvents: typeof searchEvents;
  } = {
    watchChanges,
    searchEvents,
    getEvent: unary(turns, (request) => {
      const hit = catalog.getEvent(request.id);
      return { event: eventMessageOf(hit.event), ...embedded([hit]) };
    }),
    searchVenues: unary(turns, (request) => {
      const page = catalog.searchVenues(venueQueryOf(request));
      return { venues: page.items.map(venueMessageOf), page: pageInfo(page) };
    }),
    getVenue: unary(turns, (request) => ({
      venue: venueMessageOf(catalog.getVenue(request.id)),
    })),
    searchAttractions: unary(turns, (request) => {
      const page = catalog.searchAttractions(attractionQueryOf(request));
      return { attractions: page.items.map(attractionMessageOf), page: pageInfo(page) };
    }),
    getAttraction: unary(turns, (request) => ({
      attraction: attractionMessageOf(catalog.getAttraction(request.id)),
    })),
    searchClassifications: unary(turns, (request) => {
      const page = catalog.searchClassifications(classificationQueryOf(request));
      return { segments: page.items.map(segmentMessageOf), page: pageInfo(page) };
    }),
    getClassification: unary(turns, (request) => {
      const found = catalog.getClassification(request.id);
      return { segment: segmentMessageOf(found.segment), level: found.level };
    }),
    similarAttractions: unary(turns, (request) => ({
      attractions: catalog
        .similarAttractions(request.id, {
          hasEvents: request.hasEvents,
          countryCodes: request.countryCodes,
          limit: Math.min(Math.max(request.limit || 10, 1), 250),
        })
        .map(attractionMessageOf),
    })),
  };
  const definition = {
    ...CatalogServiceService,
    searchEvents: {
      ...CatalogServiceService.searchEvents,
      responseSerialize: (value: Buffer): Buffer => value,
    },
  } satisfies grpc.ServiceDefinition;
  return {
    definition,
    implementation,
    close() {
      for (const call of watchers) call.end();
      watchers.clear();
    },
  };
}

type Watcher = grpc.ServerWritableStream<WatchChangesRequest, WatchChangesResponse>;

/**
 * WatchChanges: each stream gets the catalog's sequence at once and after changes, coalesced:
 * however many changes land in one turn of the event loop, one message with the latest sequence
 * follows them.
 */
function changeWatcher(catalog: Catalog, instance: string, watchers: Set<Watcher>) {
  return (call: Watcher) => {
    watchers.add(call);
    let scheduled = false;
    const send = () => {
      scheduled = false;
      if (!call.cancelled && !call.writableEnded)
        call.write({ instance, sequence: catalog.sequence });
    };
    const unsubscribe = catalog.onChange(() => {
      if (scheduled) return;
      scheduled = true;
      setImmediate(send);
    });
    const done = () => {
      unsubscribe();
      watchers.delete(call);
    };
    call.on('cancelled', done);
    call.on('close', done);
    call.on('error', done);
    send();
  };
}

/** A SearchEvents answer, serialised: the page's documents or its encoded events. */
function encodedEventsPage(catalog: Catalog, request: SearchEventsRequest): Buffer {
  const query = eventQueryOf(request);
  // Asked for documents (the edge, for a search without a locale): the page as the joined
  // event documents the catalog rendered when it indexed each event.
  const rendered = request.documents ? catalog.searchEventsDocuments(query) : undefined;
  if (rendered) {
    const out = new Utf8Writer();
    rendered.items.forEach((hit, n) => {
      if (n > 0) out.text(',');
      writeEventDocument(out, hit.opening, hit.venue, hit.attractions);
    });
    // The whole response in one buffer: the page, then the documents' field around them.
    return out.finish(documentsPageHead(pageInfo(rendered), out.length));
  }
  const page = catalog.searchEventsEncoded(query);
  // Each venue and attraction of the page once, by id.
  const venues = new Map<string, Uint8Array>();
  const attractions = new Map<string, Uint8Array>();
  for (const hit of page.items) {
    if (hit.venue) venues.set(hit.venue.id, hit.venue.encoded);
    for (const a of hit.attractions) attractions.set(a.id, a.encoded);
  }
  return encodeEventsPage({
    events: page.items.map((hit) => hit.encoded),
    venues: [...venues.values()],
    attractions: [...attractions.values()],
    page: pageInfo(page),
  });
}
