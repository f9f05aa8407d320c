import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { waitFor } from '@marquee/platform/testing';
import {
  FanSessionOutcome,
  PickSelection,
  TopPicksServiceClient,
  type GetTopPicksRequest,
} from '@marquee/proto/cart/v1';
import { composedCart } from './support/composed-cart.js';
import { EVENT_ID } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';

const logger = createLogger({ service: 'cart-top-picks-test', level: 'silent' });
const NOW = new Date('2030-06-01T12:00:00Z');

/** cart composed as the service runs (memory bus and stores), TopPicksService over gRPC. */
describe('TopPicksService over gRPC (composed cart, memory mode)', () => {
  let client: InstanceType<typeof TopPicksServiceClient>;
  let address: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ client, address, stop } = await composedCart(TopPicksServiceClient, {
      logger,
      now: NOW,
      available: 10,
      compose: { connector: new FakeConnector(20, () => NOW) },
    }));
  });

  afterAll(async () => {
    await stop?.();
  });

  const request = (over: Partial<GetTopPicksRequest> = {}): GetTopPicksRequest => ({
    appId: 'app-1',
    eventId: EVENT_ID,
    fanSessionId: '',
    quantity: 0,
    ticketTypeId: '',
    priceLevelIds: [],
    areaIds: [],
    sections: [],
    priceMin: '',
    priceMax: '',
    selection: PickSelection.PICK_SELECTION_ANY,
    page: 0,
    size: 0,
    ...over,
  });

  it('answers picks under a new session, then the same session while it lives', async () => {
    const first = await waitFor(async () => {
      const answer = await callUnary(client, 'getTopPicks', request());
      return answer.picks.length > 0 ? answer : undefined;
    });
    expect(first.fanSession!.outcome).toBe(FanSessionOutcome.FAN_SESSION_OUTCOME_CREATED);
    expect(first.fanSession!.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.fanSession!.expiresAt!.getTime() - NOW.getTime()).toBe(3_600_000);
    expect(first).toMatchObject({ page: 1, size: 10, messages: [] });
    expect(first.offers.length).toBeGreaterThan(0);
    const again = await callUnary(
      client,
      'getTopPicks',
      request({ fanSessionId: first.fanSession!.id }),
    );
    expect(again.fanSession).toMatchObject({
      id: first.fanSession!.id,
      outcome: FanSessionOutcome.FAN_SESSION_OUTCOME_ACTIVE,
    });
    // Another app presenting that id gets its own new session.
    const other = await callUnary(
      client,
      'getTopPicks',
      request({ appId: 'app-2', fanSessionId: first.fanSession!.id }),
    );
    expect(other.fanSession!.id).not.toBe(first.fanSession!.id);
  });

  it('answers INVALID_ARGUMENT (10002) for bad input and NOT_FOUND for an unknown event', async () => {
    for (const bad of [
      request({ size: 31 }),
      request({ page: -1 }),
      request({ quantity: 9 }),
      request({ priceMin: 'abc' }),
      request({ priceMin: '50', priceMax: '10' }),
    ]) {
      await expect(callUnary(client, 'getTopPicks', bad)).rejects.toMatchObject({
        kind: 'invalid_argument',
        details: { reason: '10002' },
      });
    }
    await expect(
      callUnary(client, 'getTopPicks', request({ eventId: 'AAAAAAAAAAAAAAA' })),
    ).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('serves listings to operators: unknown order and listing are NOT_FOUND', async () => {
    await expect(
      callUnary(client, 'createResaleListing', {
        orderId: 'nope',
        ticketIds: ['t1'],
        price: { amountMinor: 100, currency: 'GBP' },
        sellerNotes: '',
      }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    await expect(
      callUnary(client, 'getResaleListing', { id: `${EVENT_ID}.${'A'.repeat(22)}` }),
    ).rejects.toMatchObject({ kind: 'not_found' });
    const listed = await callUnary(client, 'listResaleListings', {
      eventId: EVENT_ID,
      activeOnly: false,
      page: { offset: 0, limit: 0 },
    });
    expect(listed).toEqual({ listings: [], page: { offset: 0, limit: 50, total: 0 } });
  });

  it('answers only the edge: another service is PERMISSION_DENIED', async () => {
    const other = createGrpcClient(TopPicksServiceClient, address, {
      deadlineMs: 5_000,
      logger,
      caller: 'secure-entry',
    });
    await expect(callUnary(other, 'getTopPicks', request())).rejects.toMatchObject({
      kind: 'permission_denied',
    });
    other.close();
  });
});
