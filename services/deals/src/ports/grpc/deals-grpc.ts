import { unary } from '@marquee/platform/grpc';
import type { GrpcRegistration } from '@marquee/platform/service';
import { DistanceUnit } from '@marquee/proto/common/v1';
import {
  DealsServiceService,
  type CreateDealRequest,
  type EndDealRequest,
  type GetDealRequest,
  type UpdateDealRequest,
  type DealEvent as DealEventMessage,
  type SearchDealsRequest,
  type SearchDealsResponse,
} from '@marquee/proto/deals/v1';
import type { DealsApp } from '../../app/deals-app.js';
import { DealsError, type Exclusivity } from '../../domain/deal.js';
import { DEFAULT_RADIUS, DEFAULT_ROWS, type DealSearchCriteria } from '../../domain/search.js';
import type { DealSearchHit } from '../../domain/search.js';
import { fromExclusivityMessage, toDealMessage } from '../../adapters/deal-message.js';

/** A public numeric id sent as decimal digits (service.proto); anything else is refused. */
function numericId(name: string, value: string): number | undefined {
  if (value === '') return undefined;
  if (!/^\d{1,16}$/.test(value))
    throw new DealsError('invalid_argument', `${name} must be a positive integer`);
  return Number(value);
}

/** SearchDealsRequest → criteria. Zero values mean "not given" (proto3), so the API defaults apply. */
export function toCriteria(request: SearchDealsRequest): DealSearchCriteria {
  const exclusivities = request.exclusivities.map(fromExclusivityMessage);
  if (exclusivities.includes(''))
    throw new DealsError('invalid_argument', 'exclusivities must be EXCLUSIVE or NONEXCLUSIVE');
  const majorGenreId = numericId('majorGenreId', request.majorGenreId);
  const minorGenreId = numericId('minorGenreId', request.minorGenreId);
  const venueId = numericId('venueId', request.venueId);
  const attractionId = numericId('attractionId', request.attractionId);
  return {
    ...(request.dealId ? { dealId: request.dealId } : {}),
    exclusivities:
      exclusivities.length > 0 ? (exclusivities as Exclusivity[]) : ['EXCLUSIVE', 'NONEXCLUSIVE'],
    marketIds: request.marketIds,
    ...(request.country ? { country: request.country } : {}),
    ...(request.city ? { city: request.city } : {}),
    ...(request.state ? { state: request.state } : {}),
    ...(request.location
      ? {
          near: {
            latitude: request.location.latitude,
            longitude: request.location.longitude,
            radius: request.radius || DEFAULT_RADIUS,
            unit: request.radiusUnit === DistanceUnit.DISTANCE_UNIT_MILES ? 'miles' : 'kilometers',
          },
        }
      : {}),
    ...(majorGenreId !== undefined ? { majorGenreId } : {}),
    ...(minorGenreId !== undefined ? { minorGenreId } : {}),
    ...(venueId !== undefined ? { venueId } : {}),
    ...(attractionId !== undefined ? { attractionId } : {}),
    ...(request.timeRangeStart ? { timeRangeStart: request.timeRangeStart } : {}),
    ...(request.timeRangeEnd ? { timeRangeEnd: request.timeRangeEnd } : {}),
    startRow: request.page?.offset ?? 0,
    rows: request.page?.limit || DEFAULT_ROWS,
    qa: request.qa,
  };
}

export function toHitMessage({ event, deals }: DealSearchHit): DealEventMessage {
  return {
    eventId: event.id,
    eventName: event.name,
    eventDate: event.startAt,
    onsaleOnDate: event.onsaleAt,
    eventDetailsLink: event.detailsUrl,
    minPrice: event.price
      ? { amountMinor: event.price.minMinor, currency: event.price.currency }
      : undefined,
    maxPrice: event.price
      ? { amountMinor: event.price.maxMinor, currency: event.price.currency }
      : undefined,
    deals: deals.map(toDealMessage),
    attractions: event.attractions.map((a) => ({ id: a.id, name: a.name, number: a.number })),
    venue: event.venue
      ? {
          id: event.venue.id,
          name: event.venue.name,
          number: event.venue.number,
          location:
            event.venue.latitude !== undefined && event.venue.longitude !== undefined
              ? { latitude: event.venue.latitude, longitude: event.venue.longitude }
              : undefined,
        }
      : undefined,
    majorGenres: event.majorGenres.map((g) => ({ id: g.id, name: g.name, number: g.number })),
    minorGenres: event.minorGenres.map((g) => ({ id: g.id, name: g.name, number: g.number })),
  };
}

/** marquee.deals.v1.DealsService: maps messages and delegates to the app. */
export function dealsGrpc(app: DealsApp): GrpcRegistration {
  return {
    definition: DealsServiceService,
    implementation: {
      createDeal: unary(async (r: CreateDealRequest) => ({
        deal: toDealMessage(
          await app.createDeal({
            eventId: r.eventId,
            name: r.name,
            description: r.description,
            offerCode: r.offerCode,
            exclusivity: fromExclusivityMessage(r.exclusivity),
          }),
        ),
      })),
      updateDeal: unary(async (r: UpdateDealRequest) => ({
        deal: toDealMessage(
          await app.updateDeal(r.id, {
            name: r.name,
            description: r.description,
            offerCode: r.offerCode,
            exclusivity: fromExclusivityMessage(r.exclusivity),
            expectedVersion: r.expectedVersion,
          }),
        ),
      })),
      endDeal: unary(async (r: EndDealRequest) => ({
        deal: toDealMessage(await app.endDeal(r.id)),
      })),
      getDeal: unary(async (r: GetDealRequest) => ({
        deal: toDealMessage(await app.getDeal(r.id)),
      })),
      searchDeals: unary((request: SearchDealsRequest): SearchDealsResponse => {
        const result = app.search(toCriteria(request));
        return {
          events: result.hits.map(toHitMessage),
          page: { offset: result.startRow, limit: result.rows, total: result.totalHits },
        };
      }),
    },
  };
}
