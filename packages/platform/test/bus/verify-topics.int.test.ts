/**
 * Production's topic rule against a real broker: a bus with `autoCreate` off creates nothing and
 * refuses, at start or publish, a topic that is missing or compacted unlike the catalog; the
 * deployment's provisioning (ensureTopics) makes it start.
 */
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createKafkaBus,
  ensureTopics,
  TopicMismatchError,
  verifyTopics,
  type EventBus,
} from '../../src/bus/index.js';
import { describeIntegration, uniqueName } from '../../src/testing/index.js';
import { aPing, pingTopic, recordingLogger } from './fixtures.js';

describeIntegration('topics verified, never created, when autoCreate is off', (env) => {
  let admin: Admin;
  const buses: EventBus[] = [];
  const verifyingBus = () => {
    const bus = createKafkaBus({
      ...env.kafka,
      clientId: uniqueName('verify'),
      source: '//marquee/verify',
      logger: recordingLogger(),
      topics: { autoCreate: false },
      consumer: { maxWaitTimeMs: 250 },
    });
    buses.push(bus);
    return bus;
  };

  beforeAll(async () => {
    admin = new Kafka({
      clientId: uniqueName('verify-admin'),
      ...env.kafka,
      logLevel: logLevel.ERROR,
    }).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await admin?.disconnect();
  });

  it('names a missing topic and its missing .dlq twin', async () => {
    const topic = pingTopic();
    const refused = await verifyTopics(admin, [topic]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TopicMismatchError);
    expect((refused as TopicMismatchError).problems).toEqual([
      `${topic.name} is missing`,
      `${topic.name}.dlq is missing`,
    ]);
  });

  it('refuses a topic compacted unlike the catalog, and only warns on retention', async () => {
    const compacted = pingTopic({ compacted: true });
    // Created by someone else with the broker's defaults: delete, not compact.
    await admin.createTopics({
      topics: [{ topic: compacted.name }, { topic: `${compacted.name}.dlq` }],
      waitForLeaders: true,
    });
    await expect(verifyTopics(admin, [compacted])).rejects.toThrow(
      `${compacted.name} has cleanup.policy=delete, the catalog says compact`,
    );

    const kept = pingTopic();
    await ensureTopics(admin, [{ ...kept, retentionMs: kept.retentionMs * 2 }]);
    const { warnings } = await verifyTopics(admin, [kept]);
    expect(warnings).toEqual([
      `${kept.name} keeps records ${kept.retentionMs * 2} ms, the catalog says ${kept.retentionMs}`,
    ]);
  });

  it('refuses to start a consumer of a missing topic and to publish to one, creating nothing', async () => {
    const topic = pingTopic();
    const bus = verifyingBus();
    await bus.subscribe(topic, { group: uniqueName('verify') }, async () => {});
    await expect(bus.start()).rejects.toBeInstanceOf(TopicMismatchError);
    await expect(bus.publish(topic, [{ key: 'k', value: aPing() }])).rejects.toThrow(
      `${topic.name} is missing`,
    );
    expect(await admin.listTopics()).not.toContain(topic.name);

    // Provisioned as the deployment does it: a new replica starts and publishes.
    await ensureTopics(admin, [topic]);
    const next = verifyingBus();
    await next.subscribe(topic, { group: uniqueName('verify') }, async () => {});
    await next.start();
    await next.publish(topic, [{ key: 'k', value: aPing() }]);
  });
});
