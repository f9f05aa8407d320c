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

/**
 * A search answer with its events, venues and attractions still in their protobuf encodings
 * (`Event`, `DiscoveryVenue`, `DiscoveryAttraction` of marquee.catalog.v1).
 */
export interface EncodedEventsPage {
  events: Uint8Array[];
  page: SearchEventsResponse['page'];
  venues: Uint8Array[];
  attractions: Uint8Array[];
  /**
   * When the query asked for them (`documents`) and the catalog renders them: the page's Discovery
   * v2 event documents, UTF-8 JSON joined by commas (SearchEventsResponse.event_documents); the
   * other lists are then empty. Absent: render the events.
   */
  documents?: Uint8Array;
}

/**
 * What the discovery APIs need from catalog-indexer (CatalogService). Unknown ids reject with an
 * error of kind `not_found`, refused queries with `invalid_argument`.
 */
export interface DiscoveryCatalog {
  /** The events, venues and attractions decoded (documents are for searchEventsEncoded). */
  searchEvents(query: SearchEventsRequest): Promise<Omit<SearchEventsResponse, 'eventDocuments'>>;
  /**
   * The same search with the events, venues and attractions left encoded, so the edge decodes and
   * renders only what it has not rendered yet (event-documents.ts). Optional: without it, the edge
   * encodes what `searchEvents` answers.
   */
  searchEventsEncoded?(query: SearchEventsRequest): Promise<EncodedEventsPage>;
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
  version?(): string | undefined;
}
