import { randomUUID } from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import {
  CatalogServiceService,
  SearchEventsResponse,
  type CatalogServiceServer,
  type WatchChangesRequest,
  type WatchChangesResponse,
  type DiscoveryAttraction,
  type DiscoveryVenue,
} from '@marquee/proto/catalog/v1';
import { Utf8Writer, writeEventDocument } from '@marquee/discovery-documents';
import { OnePerTurn } from '@marquee/platform/grpc';
import type { GrpcRegistration } from '@marquee/platform/service';
import type { Catalog } from '../../app/catalog.js';
import type { Page } from '../../domain/catalog-index.js';

type Unary<Req, Res> = (
  call: grpc.ServerUnaryCall<Req, Res>,
  callback: grpc.sendUnaryData<Res>,
) => void;

/** Runs a synchronous query; a thrown domain error reaches the client with its status (platform wrapper). */
function unary<Req, Res>(turns: OnePerTurn, answer: (request: Req) => Res): Unary<Req, Res> {
  return (call, callback) =>
    turns.run(() => {
      if (call.cancelled) return;
      let response: Res;
      try {
        response = answer(call.request);
      } catch (error) {
        callback(error as grpc.ServiceError);
        return;
      }
      callback(null, response);
    });
}

const pageInfo = (page: Page<unknown>) => ({
  offset: page.offset,
  limit: page.limit,
  total: page.total,
});

/** Collects each venue and attraction of a page once, so the edge can embed them. */
function embedded(hits: readonly { venue?: DiscoveryVenue; attractions: DiscoveryAttraction[] }[]) {
  const venues = new Map<string, DiscoveryVenue>();
  const attractions = new Map<string, DiscoveryAttraction>();
  for (const hit of hits) {
    if (hit.venue) venues.set(hit.venue.id, hit.venue);
    for (const a of hit.attractions) attractions.set(a.id, a);
  }
  return { venues: [...venues.values()], attractions: [...attractions.values()] };
}

/**
 * What `searchEvents` answers before serialisation: the events, venues and attractions already
 * protobuf-encoded (`Event`, `DiscoveryVenue`, `DiscoveryAttraction`).
 */
export interface EncodedSearchEvents {
  encodedEvents: Uint8Array[];
  encodedVenues: Uint8Array[];
  encodedAttractions: Uint8Array[];
  page: SearchEventsResponse['page'];
}

/** Length-delimited tags of SearchEventsResponse's repeated fields: events 1, venues 3, attractions 4. */
const EVENTS_FIELD_TAG = (1 << 3) | 2;
const VENUES_FIELD_TAG = (3 << 3) | 2;
const ATTRACTIONS_FIELD_TAG = (4 << 3) | 2;
/** SearchEventsResponse.event_documents (5, bytes). */
const DOCUMENTS_FIELD_TAG = (5 << 3) | 2;

/**
 * Writes a SearchEventsResponse whose events, venues and attractions are already encoded (the index
 * keeps them so): the page through ts-proto, then each message as its field. Protobuf parsers
 * accept fields in any order and append repeated ones, so this decodes exactly like
 * `SearchEventsResponse.encode` of the decoded messages, without encoding them for every page.
 */
export function encodeSearchEventsResponse(value: EncodedSearchEvents | Uint8Array): Buffer {
  // Already a whole response (documentsResponseHead and its documents).
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.length);
  const head = pageOnly(value.page);
  const parts: [number, Uint8Array[]][] = [
    [EVENTS_FIELD_TAG, value.encodedEvents],
    [VENUES_FIELD_TAG, value.encodedVenues],
    [ATTRACTIONS_FIELD_TAG, value.encodedAttractions],
  ];
  let size = head.length;
  for (const [, messages] of parts) {
    for (const message of messages) size += 1 + varintSize(message.length) + message.length;
  }
  const out = Buffer.allocUnsafe(size);
  out.set(head, 0);
  let at = head.length;
  for (const [tag, messages] of parts) {
    for (const message of messages) {
      at = writeFieldKey(out, at, tag, message.length);
      out.set(message, at);
      at += message.length;
    }
  }
  return out;
}

/**
 * The start of a SearchEventsResponse with `page` and an `event_documents` field of `length` bytes,
 * up to where those bytes go.
 */
export function documentsResponseHead(page: SearchEventsResponse['page'], length: number): Buffer {
  const head = pageOnly(page);
  const out = Buffer.allocUnsafe(head.length + 1 + varintSize(length));
  out.set(head, 0);
  writeFieldKey(out, head.length, DOCUMENTS_FIELD_TAG, length);
  return out;
}

/** A SearchEventsResponse with its page alone. */
function pageOnly(page: SearchEventsResponse['page']): Uint8Array {
  return SearchEventsResponse.encode({
    events: [],
    page,
    venues: [],
    attractions: [],
    eventDocuments: Buffer.alloc(0),
  }).finish();
}

/**
 * Writes a length-delimited field's one-byte tag and its length (a varint) at `at`; returns where
 * the field's bytes go.
 */
function writeFieldKey(out: Buffer, at: number, tag: number, length: number): number {
  out[at++] = tag;
  while (length > 0x7f) {
    out[at++] = (length & 0x7f) | 0x80;
    length >>>= 7;
  }
  out[at++] = length;
  return at;
}

function varintSize(value: number): number {
  let size = 1;
  while (value > 0x7f) {
    value >>>= 7;
    size++;
  }
  return size;
}

/**
 * CatalogService over gRPC: maps and delegates to the catalog, nothing more. `close()` ends the open
 * WatchChanges streams (the server waits for open calls when it stops).
 */
export function catalogGrpc(catalog: Catalog): GrpcRegistration & { close(): void } {
  const instance = randomUUID();
  const turns = new OnePerTurn();
  const watchers = new Set<grpc.ServerWritableStream<WatchChangesRequest, WatchChangesResponse>>();
  const watchChanges = (
    call: grpc.ServerWritableStream<WatchChangesRequest, WatchChangesResponse>,
  ) => {
    watchers.add(call);
    // Coalesced: however many changes land in one turn of the event loop, one message with the
    // latest sequence follows them.
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
  const implementation: CatalogServiceServer = {
    watchChanges,
    // Answers EncodedSearchEvents, which the definition below serialises (encodeSearchEventsResponse).
    searchEvents: unary(turns, (request) => {
      // Asked for documents (the edge, for a search without a locale): the page as the joined
      // event documents the catalog rendered when it indexed each event.
      const rendered = request.documents ? catalog.searchEventsDocuments(request) : undefined;
      if (rendered) {
        const out = new Utf8Writer();
        rendered.items.forEach((hit, n) => {
          if (n > 0) out.text(',');
          writeEventDocument(out, hit.opening, hit.venue, hit.attractions);
        });
        // The whole response in one buffer: the page, then the documents' field around them.
        return out.finish(
          documentsResponseHead(pageInfo(rendered), out.length),
        ) as unknown as SearchEventsResponse;
      }
      const page = catalog.searchEventsEncoded(request);
      // Each venue and attraction of the page once, by id.
      const venues = new Map<string, Uint8Array>();
      const attractions = new Map<string, Uint8Array>();
      for (const hit of page.items) {
        if (hit.venue) venues.set(hit.venue.id, hit.venue.encoded);
        for (const a of hit.attractions) attractions.set(a.id, a.encoded);
      }
      const answer: EncodedSearchEvents = {
        encodedEvents: page.items.map((hit) => hit.encoded),
        encodedVenues: [...venues.values()],
        encodedAttractions: [...attractions.values()],
        page: pageInfo(page),
      };
      return answer as unknown as SearchEventsResponse;
    }),
    getEvent: unary(turns, (request) => {
      const hit = catalog.getEvent(request.id);
      return { event: hit.event, ...embedded([hit]) };
    }),
    searchVenues: unary(turns, (request) => {
      const page = catalog.searchVenues(request);
      return { venues: page.items, page: pageInfo(page) };
    }),
    getVenue: unary(turns, (request) => ({ venue: catalog.getVenue(request.id) })),
    searchAttractions: unary(turns, (request) => {
      const page = catalog.searchAttractions(request);
      return { attractions: page.items, page: pageInfo(page) };
    }),
    getAttraction: unary(turns, (request) => ({ attraction: catalog.getAttraction(request.id) })),
    searchClassifications: unary(turns, (request) => {
      const page = catalog.searchClassifications(request);
      return { segments: page.items, page: pageInfo(page) };
    }),
    getClassification: unary(turns, (request) => catalog.getClassification(request.id)),
    similarAttractions: unary(turns, (request) => ({
      attractions: catalog.similarAttractions(request.id, {
        hasEvents: request.hasEvents,
        countryCodes: request.countryCodes,
        limit: Math.min(Math.max(request.limit || 10, 1), 250),
      }),
    })),
  };
  const definition = {
    ...CatalogServiceService,
    searchEvents: {
      ...CatalogServiceService.searchEvents,
      responseSerialize: encodeSearchEventsResponse,
    },
  };
  return {
    definition,
    implementation,
    close() {
      for (const call of watchers) call.end();
      watchers.clear();
    },
  };
}
