import type { CallOptions, ClientUnaryCall, Metadata, ServiceError } from '@grpc/grpc-js';
import {
  CatalogServiceClient,
  CatalogServiceService,
  type SearchEventsRequest,
} from '@marquee/proto/catalog/v1';
import { decodeEventsPage, type EncodedEventsPage } from '@marquee/proto/catalog/v1/wire';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import type { DiscoveryCatalog } from '../app/discovery-catalog.js';
import { replicas, splitAddresses } from './replicas.js';

/**
 * CatalogService's client with one more way to call SearchEvents: `searchEventsEncoded` reads the
 * answer with the shared wire codec (decodeEventsPage), leaving the events, venues and attractions
 * encoded until the edge renders them (it renders each event version once).
 */
class CatalogClient extends CatalogServiceClient {
  searchEventsEncoded(
    request: SearchEventsRequest,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response: EncodedEventsPage) => void,
  ): ClientUnaryCall {
    const method = CatalogServiceService.searchEvents;
    return this.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      decodeEventsPage,
      request,
      metadata,
      options,
      // grpc-js passes a value whenever the error is null (what callers read).
      (error, value) => callback(error, value!),
    );
  }
}

/**
 * catalog-indexer over gRPC, as the edge's DiscoveryCatalog port. Errors arrive as AppError kinds.
 * `address` may list several replicas (`host:port,host:port`): every replica holds the whole
 * catalog, so calls go round-robin over those whose change stream is open, and the catalog version
 * the page cache keys on is every replica's version together (a change in any one of them is a new
 * version; unknown while any stream is down).
 */
export function createCatalogIndexerClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): DiscoveryCatalog & { close(): void } {
  const members = splitAddresses(address).map((one) => {
    const client = createGrpcClient(CatalogClient, one, options);
    return { client, watch: watchCatalogVersion(client, options.logger) };
  });
  const pool = replicas(members, (member) => member.watch.current() !== undefined);
  const version =
    members.length === 1
      ? members[0]!.watch.current
      : () => {
          const versions = members.map((member) => member.watch.current());
          return versions.every((v) => v !== undefined) ? versions.join('|') : undefined;
        };
  return {
    version,
    searchEventsEncoded: (query) =>
      pool.call(({ client }, wait) => callUnary(client, 'searchEventsEncoded', query, wait)),
    async searchEvents(query) {
      const { events, page, venues, attractions } = await pool.call(({ client }, wait) =>
        callUnary(client, 'searchEvents', query, wait),
      );
      return { events, page, venues, attractions };
    },
    getEvent: (id) =>
      pool.call(({ client }, wait) => callUnary(client, 'getEvent', { id, locale: '' }, wait)),
    searchVenues: (query) =>
      pool.call(({ client }, wait) => callUnary(client, 'searchVenues', query, wait)),
    async getVenue(id) {
      const answer = await pool.call(({ client }, wait) =>
        callUnary(client, 'getVenue', { id }, wait),
      );
      return answer.venue!;
    },
    searchAttractions: (query) =>
      pool.call(({ client }, wait) => callUnary(client, 'searchAttractions', query, wait)),
    async getAttraction(id) {
      const answer = await pool.call(({ client }, wait) =>
        callUnary(client, 'getAttraction', { id }, wait),
      );
      return answer.attraction!;
    },
    async similarAttractions(query) {
      const answer = await pool.call(({ client }, wait) =>
        callUnary(client, 'similarAttractions', query, wait),
      );
      return answer.attractions;
    },
    searchClassifications: (query) =>
      pool.call(({ client }, wait) => callUnary(client, 'searchClassifications', query, wait)),
    getClassification: (id) =>
      pool.call(({ client }, wait) => callUnary(client, 'getClassification', { id }, wait)),
    close: () => {
      for (const { client, watch } of members) {
        watch.close();
        client.close();
      }
    },
  };
}

/** A watch stream lives this long (every call has a deadline), then is reopened at once. */
const WATCH_DEADLINE_MS = 5 * 60_000;

/**
 * Follows catalog-indexer's WatchChanges stream: the current version is `instance:sequence` while
 * the stream is open, `undefined` otherwise (a cache must then not serve anything). Reopened at once
 * when its deadline ends it, 1 s after any other error or end, for as long as the client is open;
 * opened on first use.
 */
function watchCatalogVersion(client: Pick<CatalogServiceClient, 'watchChanges'>, logger: Logger) {
  let current: string | undefined;
  let stream: ReturnType<CatalogServiceClient['watchChanges']> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  const open = () => {
    retry = undefined;
    if (closed) return;
    const opened = client.watchChanges({}, { deadline: Date.now() + WATCH_DEADLINE_MS });
    stream = opened;
    opened.on('data', (message: { instance: string; sequence: number }) => {
      current = `${message.instance}:${message.sequence}`;
    });
    const lost = (error?: Error) => {
      if (stream !== opened) return;
      stream = undefined;
      current = undefined;
      if (closed) return;
      const code = (error as { code?: number } | undefined)?.code;
      if (code === 4 /* DEADLINE_EXCEEDED: its lifetime is over */) {
        open();
        return;
      }
      logger.debug({ err: error }, 'catalog change stream lost; retrying in 1 s');
      retry = setTimeout(open, 1_000);
      retry.unref();
    };
    opened.on('error', lost);
    opened.on('end', () => lost());
  };
  return {
    current: () => {
      if (stream === undefined && retry === undefined && !closed) open();
      return current;
    },
    close: () => {
      closed = true;
      clearTimeout(retry);
      stream?.cancel();
      stream = undefined;
      current = undefined;
    },
  };
}
