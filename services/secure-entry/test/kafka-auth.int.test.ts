import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  createKafkaBus,
  DLQ_ERROR,
  SIGNATURE_HEADER,
  type EventBus,
  type IncomingEvent,
  type TopicDef,
} from '@marquee/platform/bus';
import { generateServiceAuthKey, ServiceKeyring } from '@marquee/platform/grpc';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import { hostService } from '@marquee/platform/service';
import {
  describeKafkaAuth,
  metricValue,
  startGroupsAtEnd,
  waitFor,
  testLogger,
} from '@marquee/platform/testing';
import type { entryV1 } from '@marquee/proto';
import { orderConfirmedTopic, ticketIssuedTopic } from '@marquee/proto/topics';
import { secureEntryService } from '../src/index.js';
import { confirmedOrder } from './support/fixtures.js';

/**
 * secure-entry on the broker's authenticated listener, each party with its own SASL user and the
 * ACLs generated from the topic catalog: a forged `order-confirmed` is refused by the broker when
 * produced as `analytics`, and dead-lettered without tickets when produced as `cart` (allowed to
 * write the topic) with a signature made under the wrong key.
 */
describeKafkaAuth('secure-entry on authenticated Kafka', ({ saslBrokers, mongoUrl, login }) => {
  const logger = testLogger('secure-entry-kafka-auth');
  const suffix = randomBytes(4).toString('hex');
  // The services' SERVICE_AUTH_KEY; a forger with a Kafka login does not have it.
  const serviceKey = ServiceKeyring.parse(generateServiceAuthKey());
  const group = `secure-entry.kafka-auth-${suffix}`;
  const watchGroup = `kafka-auth-issued-${suffix}`;
  const dlqGroup = `kafka-auth-dlq-${suffix}`;
  const dlqTopic: TopicDef<Uint8Array> = {
    ...orderConfirmedTopic,
    name: `${orderConfirmedTopic.name}.dlq`,
    codec: { encode: (value) => value, decode: (bytes) => bytes },
  };
  const issued: IncomingEvent<entryV1.TicketIssued>[] = [];
  const deadLetters: IncomingEvent<Uint8Array>[] = [];
  let connection: Connection;
  let service: { stop(): Promise<void> };
  const buses: EventBus[] = [];

  const busAs = (user: string, signWith?: ServiceKeyring) => {
    // A service creates a missing topic of its own (its ACLs allow it); analytics may not.
    const bus = createKafkaBus({
      brokers: saslBrokers,
      clientId: `kafka-auth-${user}`,
      source: `marquee/${user}`,
      logger,
      sasl: login(user),
      topics: { autoCreate: user !== 'analytics' },
      ...(signWith ? { signatures: { producer: user, keyring: signWith } } : {}),
    });
    buses.push(bus);
    return bus;
  };

  beforeAll(async () => {
    const admin = busAs('admin', serviceKey);
    await admin.ensureTopics([orderConfirmedTopic, ticketIssuedTopic]);
    // Every group starts at the end of its topic: only this run's records matter.
    vi.stubEnv('KAFKA_SASL_MECHANISM', 'scram-sha-512');
    vi.stubEnv('KAFKA_SASL_USERNAME', 'admin');
    vi.stubEnv('KAFKA_SASL_PASSWORD', login('admin').password);
    await startGroupsAtEnd(saslBrokers.join(','), [
      { groupId: group, topic: orderConfirmedTopic.name },
      { groupId: watchGroup, topic: ticketIssuedTopic.name },
      { groupId: dlqGroup, topic: dlqTopic.name },
    ]);
    vi.unstubAllEnvs();

    connection = await connectMongo({
      url: mongoUrl,
      dbName: `secure_entry_kafka_auth_${suffix}`,
      logger,
      appName: 'secure-entry-kafka-auth',
    });
    const bus = busAs('secure-entry', serviceKey);
    const config = secureEntryService.loadConfig({
      SECURE_ENTRY_TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      SECURE_ENTRY_SECRET_KEY: randomBytes(32).toString('base64'),
      CONSUMER_GROUP: group,
    });
    const infra = { name: 'secure-entry', logger, bus, mongo: connection };
    const parts = await secureEntryService.compose(infra, config);
    await bus.start();
    const hosted = await hostService(infra, parts, {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      callers: secureEntryService.callers!,
    });
    service = { stop: () => hosted.stop() };

    // It checks secure-entry's signatures on ticket-issued as any consumer does.
    await admin.subscribe(ticketIssuedTopic, { group: watchGroup }, async (event) => {
      issued.push(event);
    });
    await admin.subscribe(dlqTopic, { group: dlqGroup }, async (event) => {
      deadLetters.push(event);
    });
    await admin.start();
  });

  afterAll(async () => {
    await service?.stop();
    for (const bus of buses.reverse()) await bus.close();
    await connection?.dropDatabase();
    if (connection) await closeMongo(connection);
  });

  const issuedFor = (orderId: string) => issued.filter((e) => e.value?.orderId === orderId);

  it('refuses order-confirmed from the analytics principal at the broker', async () => {
    const forged = confirmedOrder().message;
    // analytics holds the services' key here: the broker's ACL alone refuses it.
    const analytics = busAs('analytics', serviceKey);

    await expect(
      analytics.publish(orderConfirmedTopic, [{ key: forged.orderId, value: forged }]),
    ).rejects.toThrow(/authoriz/i);

    // A real order on the same key (same partition, later offset) is issued; the forged one is not.
    const cart = busAs('cart', serviceKey);
    const real = confirmedOrder().message;
    await cart.publish(orderConfirmedTopic, [{ key: forged.orderId, value: real }]);
    await waitFor(() => issuedFor(real.orderId).length === 1);
    expect(issuedFor(forged.orderId)).toEqual([]);
    expect(issuedFor(real.orderId)[0]!.headers[SIGNATURE_HEADER]).toMatch(/^v1\.secure-entry\./);
  });

  it('dead-letters order-confirmed signed with the wrong key, issuing no ticket', async () => {
    const forger = busAs('cart', ServiceKeyring.parse(generateServiceAuthKey()));
    const forged = confirmedOrder().message;
    await forger.publish(orderConfirmedTopic, [{ key: forged.orderId, value: forged }]);

    const cart = busAs('cart', serviceKey);
    const real = confirmedOrder().message;
    await cart.publish(orderConfirmedTopic, [{ key: forged.orderId, value: real }]);

    await waitFor(() => issuedFor(real.orderId).length === 1);
    const deadLetter = () => deadLetters.find((each) => each.key === forged.orderId);
    await waitFor(() => deadLetter() !== undefined);
    expect(issuedFor(forged.orderId)).toEqual([]);
    expect(deadLetter()!.headers[DLQ_ERROR]).toMatch(/RecordSignatureError: bad record signature/);
    expect(
      await metricValue(
        `marquee_bus_refused_records_total{topic="order-confirmed",group="${group}"}`,
      ),
    ).toBe(1);
  });
});
