import type * as grpc from '@grpc/grpc-js';
import {
  CatalogServiceService,
  type CatalogServiceServer,
  type DiscoveryAttraction,
  type DiscoveryVenue,
  type Event,
} from '@marquee/proto/catalog/v1';
import type { GrpcRegistration } from '@marquee/platform/service';
import type { Catalog } from '../../app/catalog.js';
import type { Page } from '../../domain/catalog-index.js';

type Unary<Req, Res> = (
  call: grpc.ServerUnaryCall<Req, Res>,
  callback: grpc.sendUnaryData<Res>,
) => void;

/** Runs a synchronous query; a thrown domain error reaches the client with its status (platform wrapper). */
function unary<Req, Res>(answer: (request: Req) => Res): Unary<Req, Res> {
  return (call, callback) => {
    let response: Res;
    try {
      response = answer(call.request);
    } catch (error) {
      callback(error as grpc.ServiceError);
      return;
    }
    callback(null, response);
  };
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

/** CatalogService over gRPC: maps and delegates to the catalog, nothing more. */
export function catalogGrpc(catalog: Catalog): GrpcRegistration {
  const implementation: CatalogServiceServer = {
    searchEvents: unary((request) => {
      const page = catalog.searchEvents(request);
      return {
        events: page.items.map((hit): Event => hit.event),
        page: pageInfo(page),
        ...embedded(page.items),
      };
    }),
    getEvent: unary((request) => {
      const hit = catalog.getEvent(request.id);
      return { event: hit.event, ...embedded([hit]) };
    }),
    searchVenues: unary((request) => {
      const page = catalog.searchVenues(request);
      return { venues: page.items, page: pageInfo(page) };
    }),
    getVenue: unary((request) => ({ venue: catalog.getVenue(request.id) })),
    searchAttractions: unary((request) => {
      const page = catalog.searchAttractions(request);
      return { attractions: page.items, page: pageInfo(page) };
    }),
    getAttraction: unary((request) => ({ attraction: catalog.getAttraction(request.id) })),
    searchClassifications: unary((request) => {
      const page = catalog.searchClassifications(request);
      return { segments: page.items, page: pageInfo(page) };
    }),
    getClassification: unary((request) => catalog.getClassification(request.id)),
    similarAttractions: unary((request) => ({
      attractions: catalog.similarAttractions(request.id, {
        hasEvents: request.hasEvents,
        countryCodes: request.countryCodes,
        limit: Math.min(Math.max(request.limit || 10, 1), 250),
      }),
    })),
  };
  return { definition: CatalogServiceService, implementation };
}
