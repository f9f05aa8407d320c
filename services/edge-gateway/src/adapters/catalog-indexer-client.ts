import { CatalogServiceClient } from '@marquee/proto/catalog/v1';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import type { DiscoveryCatalog } from '../app/discovery-catalog.js';

/** catalog-indexer over gRPC, as the edge's DiscoveryCatalog port. Errors arrive as AppError kinds. */
export function createCatalogIndexerClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): DiscoveryCatalog & { close(): void } {
  const client = createGrpcClient(CatalogServiceClient, address, options);
  return {
    searchEvents: (query) => callUnary(client, 'searchEvents', query),
    getEvent: (id) => callUnary(client, 'getEvent', { id, locale: '' }),
    searchVenues: (query) => callUnary(client, 'searchVenues', query),
    async getVenue(id) {
      const answer = await callUnary(client, 'getVenue', { id });
      return answer.venue!;
    },
    searchAttractions: (query) => callUnary(client, 'searchAttractions', query),
    async getAttraction(id) {
      const answer = await callUnary(client, 'getAttraction', { id });
      return answer.attraction!;
    },
    async similarAttractions(query) {
      const answer = await callUnary(client, 'similarAttractions', query);
      return answer.attractions;
    },
    searchClassifications: (query) => callUnary(client, 'searchClassifications', query),
    getClassification: (id) => callUnary(client, 'getClassification', { id }),
    close: () => client.close(),
  };
}
