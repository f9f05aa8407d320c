import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { moneyToDecimal } from '@marquee/platform/money';
import { DistanceUnit, type Money } from '@marquee/proto/common/v1';
import {
  DealsServiceClient,
  DealState,
  Exclusivity,
  SearchDealsRequest,
  type Deal,
  type DealEvent,
} from '@marquee/proto/deals/v1';
import { replicas, splitAddresses } from './replicas.js';
import type {
  DealExclusivity,
  DealRecord,
  DealSearchEvent,
  DealSearchQuery,
  DealsBackend,
} from '../app/deals.js';

const toExclusivity = (e: DealExclusivity): Exclusivity =>
  e === 'EXCLUSIVE' ? Exclusivity.EXCLUSIVITY_EXCLUSIVE : Exclusivity.EXCLUSIVITY_NONEXCLUSIVE;

/** The platform's minor units → the API's decimal amount (2550 USD → 25.5, 45500 KWD → 45.5). */
export const toAmount = (money: Money): number => moneyToDecimal(money);

export function toRecord(deal: Deal): DealRecord {
  return {
    id: deal.id,
    eventId: deal.eventId,
    dealName: deal.name,
    dealDescription: deal.description,
    ...(deal.offerCode ? { dealOfferCode: deal.offerCode } : {}),
    exclusivity:
      deal.exclusivity === Exclusivity.EXCLUSIVITY_EXCLUSIVE ? 'EXCLUSIVE' : 'NONEXCLUSIVE',
    state: deal.state === DealState.DEAL_STATE_ENDED ? 'ENDED' : 'ACTIVE',
    version: deal.version,
    createdAt: (deal.createdAt ?? new Date(0)).toISOString(),
    updatedAt: (deal.updatedAt ?? new Date(0)).toISOString(),
  };
}

/** `DealEvent` → an event of the deals search result (public numeric ids, prices in major units). */
export function toSearchEvent(event: DealEvent): DealSearchEvent {
  const venue = event.venue;
  const price = event.minPrice ?? event.maxPrice;
  return {
    eventId: event.eventId,
    eventName: event.eventName,
    ...(event.eventDate ? { eventDate: event.eventDate.toISOString() } : {}),
    ...(event.onsaleOnDate ? { onsaleOnDate: event.onsaleOnDate.toISOString() } : {}),
    eventDetailsLink: event.eventDetailsLink,
    ...(event.minPrice ? { minPrice: toAmount(event.minPrice) } : {}),
    ...(event.maxPrice ? { maxPrice: toAmount(event.maxPrice) } : {}),
    ...(price ? { currency: price.currency } : {}),
    deals: event.deals.map((d) => ({
      dealName: d.name,
      dealDescription: d.description,
      ...(d.offerCode ? { dealOfferCode: d.offerCode } : {}),
    })),
    attractions: event.attractions.map((a) => ({ attractionId: a.number, attractionName: a.name })),
    ...(venue
      ? {
          venue: {
            venueId: venue.number,
            venueName: venue.name,
            ...(venue.location
              ? { venueLatitude: venue.location.latitude, venueLongitude: venue.location.longitude }
              : {}),
          },
        }
      : {}),
    categorization: {
      majorGenres: event.majorGenres.map((g) => ({ name: g.name, id: g.number })),
      minorGenres: event.minorGenres.map((g) => ({ name: g.name, id: g.number })),
    },
  };
}

/** A deals search → `SearchDeals`: absent filters as empty strings, ids as strings. */
const searchRequest = (query: DealSearchQuery): SearchDealsRequest =>
  SearchDealsRequest.fromPartial({
    dealId: query.dealId ?? '',
    exclusivities: query.exclusivities.map(toExclusivity),
    marketIds: query.marketIds,
    country: query.country,
    city: query.city ?? '',
    state: query.state ?? '',
    ...(query.near
      ? {
          location: { latitude: query.near.latitude, longitude: query.near.longitude },
          radius: query.near.radius,
          radiusUnit:
            query.near.unit === 'miles'
              ? DistanceUnit.DISTANCE_UNIT_MILES
              : DistanceUnit.DISTANCE_UNIT_KILOMETERS,
        }
      : {}),
    majorGenreId: query.majorGenreId?.toString() ?? '',
    minorGenreId: query.minorGenreId?.toString() ?? '',
    venueId: query.venueId?.toString() ?? '',
    attractionId: query.attractionId?.toString() ?? '',
    ...(query.timeRangeStart ? { timeRangeStart: query.timeRangeStart } : {}),
    ...(query.timeRangeEnd ? { timeRangeEnd: query.timeRangeEnd } : {}),
    page: { offset: query.startRow, limit: query.rows },
    qa: query.qa,
  });

/**
 * deals over gRPC, as the edge's DealsBackend port. Errors arrive as AppError kinds. `address` may
 * list several replicas (`host:port,host:port`; each answers searches from the whole projection):
 * calls go round-robin, and reads answered `unavailable` are tried once more on the next replica
 * (writes are not: a lost answer may hide a write that was made).
 */
export function createDealsClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): DealsBackend & { close(): void } {
  const pool = replicas(
    splitAddresses(address).map((one) => createGrpcClient(DealsServiceClient, one, options)),
  );
  return {
    async searchDeals(query) {
      const request = searchRequest(query);
      const answer = await pool.call((client, wait) =>
        callUnary(client, 'searchDeals', request, wait),
      );
      return {
        hits: answer.events.length,
        totalHits: answer.page?.total ?? answer.events.length,
        events: answer.events.map(toSearchEvent),
      };
    },
    async createDeal(input) {
      const { deal } = await pool.once((client) =>
        callUnary(client, 'createDeal', {
          eventId: input.eventId,
          name: input.dealName,
          description: input.dealDescription,
          offerCode: input.dealOfferCode ?? '',
          exclusivity: toExclusivity(input.exclusivity),
        }),
      );
      return toRecord(deal!);
    },
    async updateDeal(id, change) {
      const { deal } = await pool.once((client) =>
        callUnary(client, 'updateDeal', {
          id,
          name: change.dealName,
          description: change.dealDescription,
          offerCode: change.dealOfferCode ?? '',
          exclusivity: toExclusivity(change.exclusivity),
          expectedVersion: change.expectedVersion ?? 0,
        }),
      );
      return toRecord(deal!);
    },
    async endDeal(id) {
      return toRecord((await pool.once((client) => callUnary(client, 'endDeal', { id }))).deal!);
    },
    async getDeal(id) {
      return toRecord(
        (await pool.call((client, wait) => callUnary(client, 'getDeal', { id }, wait))).deal!,
      );
    },
    close: () => {
      for (const client of pool.all) client.close();
    },
  };
}
