import { Kafka, logLevel } from 'kafkajs';
import { kafkaSecurityFromEnv } from '../config/kafka-security.js';
import type { IntegrationKafka } from './integration-env.js';

/**
 * Commits each consumer group's offsets at the current end of its topic, before a service joins
 * the group. A service that then starts with that group reads only what is published from now on,
 * as a deployed service's group, which is at the end of its topics already.
 *
 * For tests on a long-lived local broker: a service in a group of the test's own reads its topics
 * from the beginning, i.e. every record of every earlier run, which takes minutes (a read model
 * in a fresh database replaying them; a consumer calling a partner for each old order). A test that only needs the records it publishes itself starts the groups
 * at the end instead. A topic that does not exist yet has nothing to skip and is left alone; the
 * groups must not have members (new names).
 */
export async function startGroupsAtEnd(
  /**
   * The integration tier's connection (`IntegrationEnv.kafka`), or a comma-separated broker list
   * whose security comes from the environment's KAFKA_SSL_* / KAFKA_SASL_*, as a service's.
   */
  connection: string | IntegrationKafka,
  groups: ReadonlyArray<{ groupId: string; topic: string }>,
): Promise<void> {
  const kafka = new Kafka({
    clientId: 'test-consumer-groups',
    ...(typeof connection === 'string'
      ? { brokers: connection.split(','), ...kafkaSecurityFromEnv() }
      : connection),
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    for (const { groupId, topic } of groups) {
      if (!existing.has(topic)) continue;
      const ends = await admin.fetchTopicOffsets(topic);
      await admin.setOffsets({
        groupId,
        topic,
        partitions: ends.map(({ partition, high }) => ({ partition, offset: high })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}
