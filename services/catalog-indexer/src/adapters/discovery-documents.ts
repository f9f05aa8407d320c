import {
  attractionDocument,
  eventOpening,
  exactUtf8,
  venueDocument,
} from '@marquee/discovery-documents';
import type { DocumentRenderer } from '../domain/catalog-index.js';
import { attractionMessageOf, eventMessageOf, venueMessageOf } from './proto/catalog-messages.js';

/**
 * Discovery v2 documents (@marquee/discovery-documents, the edge's own renderer) in each text's
 * first locale: what the edge shows when a search names no locale. Rendered here once per event
 * version (and per venue or attraction count) instead of by every edge for every page that shows
 * the event (README "Documents"). The package renders the gRPC port's messages, which is what the
 * edge renders from too (adapters/proto/catalog-messages.ts).
 */
export const discoveryDocuments: DocumentRenderer = {
  eventOpening: (event) => eventOpening(eventMessageOf(event), undefined),
  venue: (venue) => exactUtf8(JSON.stringify(venueDocument(venueMessageOf(venue), undefined))),
  attraction: (attraction) =>
    exactUtf8(JSON.stringify(attractionDocument(attractionMessageOf(attraction), undefined))),
};
