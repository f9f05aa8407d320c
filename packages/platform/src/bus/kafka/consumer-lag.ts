/**
 * `marquee_kafka_consumer_lag`: each consumer group's lag, read from the broker at a scrape: per
 * partition, the end offset less the group's committed offset (the whole retained range when it
 * has committed nothing). Global subscriptions commit nothing and have no lag here; their
 * readiness says when they are caught up. Bounded by the ready timeout: while the broker does not
 * answer nothing new is read, and a scrape shows the lag last read (the exporter keeps a series
 * once seen; `marquee_dependency_up` says the broker is away). A partition or group no longer
 * read (the client stopped) reads 0.
 */
import { metrics, type Observation } from '../../metrics/registry.js';
import { type KafkaClients, withTimeout } from './clients.js';
import type { ConsumerGroups } from './consumer-groups.js';

/** Registers the gauge; answers its removal. */
export function registerConsumerLag(clients: KafkaClients, groups: ConsumerGroups): () => void {
  return metrics.gauge(
    'marquee_kafka_consumer_lag',
    {
      description:
        'Records of a partition not yet committed by a consumer group (end offset less committed offset)',
    },
    () => consumerLag(clients, groups),
  );
}

async function consumerLag(clients: KafkaClients, groups: ConsumerGroups): Promise<Observation[]> {
  if (clients.state !== 'started' || groups.size === 0) return [];
  return withTimeout(readLag(clients, groups), clients.readyTimeoutMs);
}

async function readLag(clients: KafkaClients, groups: ConsumerGroups): Promise<Observation[]> {
  const { admin } = clients;
  await clients.connectAdmin();
  const ends = new Map<string, Awaited<ReturnType<typeof admin.fetchTopicOffsets>>>();
  const lag: Observation[] = [];
  for (const group of groups.values()) {
    const topics = [...group.subscriptions.keys()];
    const committed = await admin.fetchOffsets({ groupId: group.id, topics });
    for (const { topic, partitions } of committed) {
      let end = ends.get(topic);
      if (end === undefined) ends.set(topic, (end = await admin.fetchTopicOffsets(topic)));
      for (const { partition, offset } of partitions) {
        const extent = end.find((each) => each.partition === partition);
        if (extent === undefined) continue;
        const high = BigInt(extent.high);
        const from = BigInt(offset) >= 0n ? BigInt(offset) : BigInt(extent.low);
        lag.push({
          value: Number(high > from ? high - from : 0n),
          attributes: { group: group.id, topic, partition },
        });
      }
    }
  }
  return lag;
}
