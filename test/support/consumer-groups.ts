import { Kafka, logLevel } from 'kafkajs';

/**
 * Commits each consumer group's offsets at the current end of its topic, before a service joins
 * the group. A service that then starts with that group reads only what is published from now on.
 *
 * For tests on a long-lived local broker: a service's read model in a fresh database replays its
 * topics from the beginning, i.e. every event of every earlier run, which on a busy Mongo-wire
 * server takes minutes. A test that only needs the records it publishes itself starts the groups
 * at the end instead. A topic that does not exist yet has nothing to skip and is left alone; the
 * groups must not have members (new names).
 */
export async function startGroupsAtEnd(
  brokers: string,
  groups: ReadonlyArray<{ groupId: string; topic: string }>,
): Promise<void> {
  const kafka = new Kafka({
    clientId: 'e2e-consumer-groups',
    brokers: brokers.split(','),
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
