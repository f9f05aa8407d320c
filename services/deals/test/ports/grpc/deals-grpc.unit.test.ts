import type * as grpc from '@grpc/grpc-js';
import {
  callUnary,
  createGrpcClient,
  createGrpcServer,
  startGrpcServer,
  stopGrpcServer,
} from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { DistanceUnit } from '@marquee/proto/common/v1';
import { DealsServiceClient, Exclusivity, SearchDealsRequest } from '@marquee/proto/deals/v1';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anEvent, memoryStorage, northOf } from '../../builders.js';
import { DealsApp } from '../../../src/app/deals-app.js';
import { publicIdOf } from '../../../src/domain/public-id.js';
import { dealsService } from '../../../src/index.js';
import { dealsGrpc, toCriteria } from '../../../src/ports/grpc/deals-grpc.js';

const logger = createLogger({ service: 'deals-test', level: 'silent' });
let app: DealsApp;
let server: grpc.Server;
let sut: DealsServiceClient;

// One server for the file; it delegates to the current test's app (fresh storage per test).
beforeAll(async () => {
  const current = new Proxy({} as DealsApp, {
    get:
      (_target, method: keyof DealsApp) =>
      (...args: never[]) =>
        (app[method] as (...a: never[]) => unknown).apply(app, args),
  });
  server = createGrpcServer({
    logger,
    services: [dealsGrpc(current)],
    callers: dealsService.callers!,
  });
  const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
  sut = createGrpcClient(DealsServiceClient, `127.0.0.1:${port}`, {
    deadlineMs: 5_000,
    caller: 'edge-gateway',
  });
});
afterAll(async () => {
  sut?.close();
  await stopGrpcServer(server, 1_000);
});

beforeEach(() => {
  const storage = memoryStorage();
  let n = 0;
  app = new DealsApp({
    deals: storage.deals,
    events: storage.events,
    clock: { now: () => new Date('2030-01-15T00:00:00Z') },
    ids: { dealId: () => `D${++n}` },
  });
});

const search = (request: Partial<SearchDealsRequest>) =>
  callUnary(sut, 'searchDeals', SearchDealsRequest.fromPartial(request));

describe('DealsService over gRPC', () => {
  it('creates, updates, reads and ends a deal; search answers the deals API result fields', async () => {
    const event = anEvent({
      venue: {
        id: 'KovZ1',
        name: 'Arena',
        number: publicIdOf('venue', 'KovZ1'),
        latitude: 40.75,
        longitude: -73.99,
      },
    });
    await app.applyEvent(event);

    const { deal } = await callUnary(sut, 'createDeal', {
      eventId: event.id,
      name: 'Two for one',
      description: 'BOGO',
      offerCode: '',
      exclusivity: Exclusivity.EXCLUSIVITY_EXCLUSIVE,
    });
    expect(deal).toMatchObject({
      eventId: event.id,
      offerCode: '',
      state: 'DEAL_STATE_ACTIVE',
      version: 1,
    });

    const updated = await callUnary(sut, 'updateDeal', {
      id: deal!.id,
      name: 'Half price',
      description: '50%',
      offerCode: 'HALF',
      exclusivity: Exclusivity.EXCLUSIVITY_NONEXCLUSIVE,
      expectedVersion: 1,
    });
    expect(updated.deal).toMatchObject({
      version: 2,
      offerCode: 'HALF',
      exclusivity: 'EXCLUSIVITY_NONEXCLUSIVE',
    });
    expect((await callUnary(sut, 'getDeal', { id: deal!.id })).deal!.name).toBe('Half price');

    const found = await search({ country: 'US' });
    expect(found.page).toEqual({ offset: 0, limit: 25, total: 1 });
    expect(found.events[0]).toMatchObject({
      eventId: event.id,
      eventName: event.name,
      eventDate: event.startAt,
      onsaleOnDate: event.onsaleAt,
      eventDetailsLink: event.detailsUrl,
      minPrice: { amountMinor: 2550, currency: 'USD' },
      maxPrice: { amountMinor: 9900, currency: 'USD' },
      venue: {
        id: 'KovZ1',
        name: 'Arena',
        number: publicIdOf('venue', 'KovZ1'),
        location: { latitude: 40.75, longitude: -73.99 },
      },
    });
    expect(found.events[0]!.attractions[0]!.number).toBe(event.attractions[0]!.number);

    await callUnary(sut, 'endDeal', { id: deal!.id });
    expect((await search({})).page!.total).toBe(0);
  });

  it('maps domain errors to status kinds the edge understands', async () => {
    await expect(
      callUnary(sut, 'createDeal', {
        eventId: 'nope',
        name: 'n',
        description: 'd',
        offerCode: '',
        exclusivity: Exclusivity.EXCLUSIVITY_EXCLUSIVE,
      }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    await expect(search({ page: { offset: 0, limit: 501 } })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await expect(search({ marketIds: [999] })).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(search({ venueId: 'abc' })).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(callUnary(sut, 'getDeal', { id: 'missing' })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });
});

describe('SearchDealsRequest → criteria', () => {
  const base = SearchDealsRequest.fromPartial({});

  it('applies the API defaults to zero values', () => {
    expect(toCriteria(base)).toEqual({
      exclusivities: ['EXCLUSIVE', 'NONEXCLUSIVE'],
      marketIds: [],
      startRow: 0,
      rows: 25,
      qa: false,
    });
  });

  it('maps location with radius default 10 and unit kilometers unless miles', () => {
    const centre = northOf({ latitude: 40, longitude: -70 }, 0);
    expect(toCriteria({ ...base, location: centre }).near).toEqual({
      ...centre,
      radius: 10,
      unit: 'kilometers',
    });
    expect(
      toCriteria({
        ...base,
        location: centre,
        radius: 5,
        radiusUnit: DistanceUnit.DISTANCE_UNIT_MILES,
      }).near,
    ).toEqual({ ...centre, radius: 5, unit: 'miles' });
  });

  it('reads public numeric ids from decimal strings', () => {
    expect(
      toCriteria({
        ...base,
        venueId: '123',
        majorGenreId: '7',
        minorGenreId: '8',
        attractionId: '9',
      }),
    ).toMatchObject({
      venueId: 123,
      majorGenreId: 7,
      minorGenreId: 8,
      attractionId: 9,
    });
  });
});
