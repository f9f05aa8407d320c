import type {
  DiscoveryAttraction,
  DiscoveryVenue,
  GetClassificationResponse,
  GetEventResponse,
  SearchAttractionsRequest,
  SearchAttractionsResponse,
  SearchClassificationsRequest,
  SearchClassificationsResponse,
  SearchEventsRequest,
  SearchEventsResponse,
  SearchVenuesRequest,
  SearchVenuesResponse,
  SimilarAttractionsRequest,
} from '@marquee/proto/catalog/v1';
import type { EncodedEventsPage } from '@marquee/proto/catalog/v1/wire';

/**
 * A search answer with its events, venues and attractions still in their protobuf encodings, or,
 * when the query asked for them (`documents`) and the catalog renders them, the page's Discovery v2
 * event documents (the wire codec shared with catalog-indexer: @marquee/proto/catalog/v1/wire).
 */
export type { EncodedEventsPage };

/**
 * What the discovery APIs need from catalog-indexer (CatalogService). Unknown ids reject with an
 * error of kind `not_found`, refused queries with `invalid_argument`.
 */
export interface DiscoveryCatalog {
  /** The events, venues and attractions decoded (international search; documents are not asked). */
  searchEvents(query: SearchEventsRequest): Promise<Omit<SearchEventsResponse, 'eventDocuments'>>;
  /**
   * The same search with the events, venues and attractions left encoded, or as the documents the
   * catalog rendered, so the edge decodes and renders only what it has not rendered yet
   * (Discovery v2 search: event-documents.ts).
   */
  searchEventsEncoded(query: SearchEventsRequest): Promise<EncodedEventsPage>;
  getEvent(id: string): Promise<GetEventResponse>;
  searchVenues(query: SearchVenuesRequest): Promise<SearchVenuesResponse>;
  getVenue(id: string): Promise<DiscoveryVenue>;
  searchAttractions(query: SearchAttractionsRequest): Promise<SearchAttractionsResponse>;
  getAttraction(id: string): Promise<DiscoveryAttraction>;
  similarAttractions(query: SimilarAttractionsRequest): Promise<DiscoveryAttraction[]>;
  searchClassifications(
    query: SearchClassificationsRequest,
  ): Promise<SearchClassificationsResponse>;
  getClassification(id: string): Promise<GetClassificationResponse>;
  /**
   * Where the catalog stands (its instance and change sequence, as one opaque string), for caching
   * its answers exactly; `undefined` while unknown (not connected), when nothing may be cached.
   */
  version(): string | undefined;
}
