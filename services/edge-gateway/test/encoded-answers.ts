import {
  DiscoveryAttraction,
  DiscoveryVenue,
  Event,
  type SearchEventsResponse,
} from '@marquee/proto/catalog/v1';
import type { EncodedEventsPage } from '@marquee/proto/catalog/v1/wire';

/** A decoded search answer as catalog-indexer sends it to DiscoveryCatalog.searchEventsEncoded. */
export function encodedAnswer(
  answer: Omit<SearchEventsResponse, 'eventDocuments'>,
): EncodedEventsPage {
  return {
    events: answer.events.map((event) => Event.encode(event).finish()),
    page: answer.page,
    venues: answer.venues.map((venue) => DiscoveryVenue.encode(venue).finish()),
    attractions: answer.attractions.map((a) => DiscoveryAttraction.encode(a).finish()),
  };
}
