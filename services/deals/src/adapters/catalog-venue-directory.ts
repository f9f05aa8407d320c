import { CatalogServiceClient } from '@marquee/proto/catalog/v1';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import type { VenueDirectory, VenueLocation } from '../app/ports.js';

/**
 * catalog-indexer (`marquee.catalog.v1.CatalogService.GetVenue`) as deals' venue directory. NOT_FOUND
 * means the catalog does not know the venue (yet) and resolves `undefined`; every other failure
 * (unreachable, deadline) rejects with its AppError, so the `event-changed` record is retried.
 * `address` may list several catalog replicas, comma separated: asked in turn (each holds every venue).
 */
export function createCatalogVenueDirectory(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): VenueDirectory & { close(): void } {
  const clients = address
    .split(',')
    .map((one) => one.trim())
    .filter((one) => one.length > 0)
    .map((one) => createGrpcClient(CatalogServiceClient, one, options));
  if (clients.length === 0) throw new Error(`no catalog-indexer address in "${address}"`);
  let turn = 0;
  return {
    async locate(venueId) {
      const client = clients[turn++ % clients.length]!;
      try {
        const { venue } = await callUnary(client, 'getVenue', { id: venueId });
        if (!venue) return undefined;
        const point = venue.location;
        return point ? { latitude: point.latitude, longitude: point.longitude } : null;
      } catch (error) {
        if ((error as { kind?: unknown }).kind === 'not_found') return undefined;
        throw error;
      }
    },
    close: () => {
      for (const client of clients) client.close();
    },
  };
}

/**
 * A small cache in front of a venue directory: known venues (with or without coordinates) are kept
 * `ttlMs`, at most `maxEntries` (the oldest entry goes first); unknown venues are never cached, so a
 * retry asks again. Many events share a venue, so a replay of the topic asks once per venue.
 */
export function cachedVenueDirectory(
  inner: VenueDirectory,
  options: { ttlMs: number; maxEntries: number; now?: () => number },
): VenueDirectory {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { location: VenueLocation | null; expiresAt: number }>();
  return {
    async locate(venueId) {
      const hit = entries.get(venueId);
      if (hit && hit.expiresAt > now()) return hit.location;
      entries.delete(venueId);
      const location = await inner.locate(venueId);
      if (location === undefined) return undefined;
      if (options.ttlMs > 0) {
        entries.set(venueId, { location, expiresAt: now() + options.ttlMs });
        if (entries.size > options.maxEntries) entries.delete(entries.keys().next().value!);
      }
      return location;
    },
  };
}
