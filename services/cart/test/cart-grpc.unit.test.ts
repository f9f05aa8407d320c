import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBus, type EventBus } from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { hostService, type HostedService } from '@marquee/platform/service';
import { waitFor } from '@marquee/platform/testing';
import { CartServiceClient, CartStatus, ReserveCartRequest } from '@marquee/proto/cart/v1';
import { availabilityChangedTopic, eventChangedTopic } from '@marquee/proto/topics';
import { loadCartConfig } from '../src/config.js';
import { composeCart } from '../src/service.js';
import { area, availability, EVENT_ID, partnerEvent } from './support/events.js';
import { FakeConnector } from './support/fake-connector.js';

const logger = createLogger({ service: 'cart-grpc-test', level: 'silent' });
const NOW = new Date('2030-06-01T12:00:00Z');

/** cart composed as the service runs (memory bus and stores), CartService over gRPC. */
describe('CartService over gRPC: reserves and Idempotency-Key (composed cart, memory mode)', () => {
  let bus: EventBus;
  let sut: HostedService;
  let client: InstanceType<typeof CartServiceClient>;
  // One place at the partner: the second reserve is refused as sold out.
  const connector = new FakeConnector(1, () => NOW);

  beforeAll(async () => {
    bus = createMemoryBus({ source: 'test' });
    const infra = { name: 'cart', logger, bus, mongo: undefined };
    const config = loadCartConfig({ HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    const parts = await composeCart(infra, config, { connector, clock: { now: () => NOW } });
    await bus.start();
    sut = await hostService(infra, parts, { host: '127.0.0.1', httpPort: 0, grpcPort: 0 });
    client = createGrpcClient(CartServiceClient, `127.0.0.1:${sut.grpcPort}`, {
      deadlineMs: 5_000,
      logger,
      caller: 'edge-gateway',
    });
    await bus.publish(eventChangedTopic, [
      { key: EVENT_ID, value: { event: partnerEvent(), changedAt: NOW } },
    ]);
    await bus.publish(availabilityChangedTopic, [
      { key: EVENT_ID, value: availability(1, [area({ available: 1 })]) },
    ]);
  });

  afterAll(async () => {
    client?.close();
    await sut?.stop();
    await bus?.close();
  });

  const reserve = (idempotencyKey: string) =>
    callUnary(
      client,
      'reserveCart',
      ReserveCartRequest.fromPartial({
        appId: 'app-1',
        eventId: EVENT_ID,
        reserves: [
          {
            tickets: [{ id: '000001', quantity: 1 }],
            acceptBestAvailable: true,
          },
        ],
        idempotencyKey,
      }),
    );

  it('answers a retry of a reserve that made a cart with that cart, even once sold out', async () => {
    const first = await waitFor(async () => reserve('key-first').catch(() => undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
      description: 'the event sellable in cart',
    });
    expect(first.cart?.status).toBe(CartStatus.CART_STATUS_HELD);

    // The partner has no place left: refused, and the sold-out hint is now live.
    const soldOut = { kind: 'resource_exhausted' };
    await expect(reserve('key-second')).rejects.toMatchObject(soldOut);
    const asked = connector.calls.createBooking;
    // A new key is refused at once, without asking the partner...
    await expect(reserve('key-third')).rejects.toMatchObject(soldOut);
    expect(connector.calls.createBooking).toBe(asked);

    // ...but the first client asking again (its answer was lost) gets its own cart.
    const retried = await reserve('key-first');
    expect(retried.cart?.id).toBe(first.cart?.id);
    expect(retried.cart?.status).toBe(CartStatus.CART_STATUS_HELD);
  });
});
