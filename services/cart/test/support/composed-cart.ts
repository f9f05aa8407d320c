import type * as grpc from '@grpc/grpc-js';
import { createMemoryBus, type MemoryBus } from '@marquee/platform/bus';
import { createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { hostService } from '@marquee/platform/service';
import { availabilityChangedTopic, eventChangedTopic } from '@marquee/proto/topics';
import { loadCartConfig } from '../../src/config.js';
import { cartService } from '../../src/index.js';
import { composeCart, type CartComposeOptions } from '../../src/service.js';
import { area, availability, EVENT_ID, partnerEvent } from './events.js';

/**
 * cart composed as the service runs (memory bus and stores) and hosted on a free port, with the
 * partner event of `events.ts` and `available` places delivered on its topics, and a client of
 * one of its gRPC services as the edge calls it (at `address`), and the memory bus it publishes on.
 * `stop` closes all of it.
 */
export async function composedCart<C extends grpc.Client>(
  Client: new (address: string, credentials: grpc.ChannelCredentials) => C,
  options: {
    logger: Logger;
    now: Date;
    available: number;
    compose: Omit<CartComposeOptions, 'clock'>;
  },
): Promise<{ client: C; address: string; bus: MemoryBus; stop: () => Promise<void> }> {
  const bus = createMemoryBus({ source: 'test' });
  const infra = { name: 'cart', logger: options.logger, bus, mongo: undefined };
  const config = loadCartConfig({ HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
  const parts = await composeCart(infra, config, {
    ...options.compose,
    clock: { now: () => options.now },
  });
  await bus.start();
  const sut = await hostService(infra, parts, {
    host: '127.0.0.1',
    httpPort: 0,
    grpcPort: 0,
    callers: cartService.callers!,
  });
  const address = `127.0.0.1:${sut.grpcPort}`;
  const client = createGrpcClient(Client, address, {
    deadlineMs: 5_000,
    logger: options.logger,
    caller: 'edge-gateway',
  });
  await bus.publish(eventChangedTopic, [
    { key: EVENT_ID, value: { event: partnerEvent(), changedAt: options.now } },
  ]);
  await bus.publish(availabilityChangedTopic, [
    { key: EVENT_ID, value: availability(1, [area({ available: options.available })]) },
  ]);
  return {
    client,
    address,
    bus,
    stop: async () => {
      client.close();
      await sut.stop();
      await bus.close();
    },
  };
}
