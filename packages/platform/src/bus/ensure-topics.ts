import type { Admin, ConfigResourceTypes, ITopicConfig } from 'kafkajs';
import { dlqTopicName, type TopicDef } from './types.js';

/** What topic creation needs from a catalog entry (a `TopicDef` fits). */
export type TopicSpec = Pick<TopicDef<unknown>, 'name' | 'compacted' | 'retentionMs'>;

export interface EnsureTopicsOptions {
  /** Partitions of a created topic (default -1: the broker's `num.partitions`). */
  numPartitions?: number;
  /** Replicas of a created topic (default -1: the broker's `default.replication.factor`). */
  replicationFactor?: number;
  /** Also create each topic's `<topic>.dlq` twin (default true). */
  deadLetters?: boolean;
  /** Retention of the dead-letter twins (default 30 days: long enough for someone to look). */
  deadLetterRetentionMs?: number;
}

/**
 * kafkajs' `ConfigResourceTypes.TOPIC`. Its value, not the named import: Node's ESM loader does not
 * see that export of kafkajs' CommonJS entry (vitest's loader does, so only a real start shows it).
 */
const TOPIC_RESOURCE = 2 as ConfigResourceTypes;

const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The topics and, unless `deadLetters` is false, each one's `.dlq` twin, once each. A dead-letter
 * topic gets no twin of its own; and a twin is never compacted, since every failed record of a key
 * matters, not only the last one.
 */
type Wanted = TopicSpec & { twin: boolean };

function withTwins(topics: readonly TopicSpec[], deadLetters = true): Wanted[] {
  const all = new Map<string, Wanted>();
  for (const topic of topics) {
    if (!all.has(topic.name)) all.set(topic.name, { ...pick(topic), twin: false });
    const twin = dlqTopicName(topic.name);
    if (deadLetters && !topic.name.endsWith('.dlq') && !all.has(twin))
      all.set(twin, { name: twin, compacted: false, retentionMs: topic.retentionMs, twin: true });
  }
  return [...all.values()];
}

const pick = ({ name, compacted, retentionMs }: TopicSpec) => ({ name, compacted, retentionMs });

/**
 * Creates the topics that do not exist yet, each with its `.dlq` twin, and returns the names it
 * created. Idempotent and safe to race: a topic another process creates first is simply skipped.
 * An existing topic is left as it is; this never alters configuration (that is the deployment's
 * job, e.g. the Helm topic catalog).
 */
export async function ensureTopics(
  admin: Admin,
  topics: readonly TopicSpec[],
  options: EnsureTopicsOptions = {},
): Promise<string[]> {
  const wanted = new Map<string, ITopicConfig>();
  for (const { name, compacted, retentionMs, twin } of withTwins(topics, options.deadLetters)) {
    wanted.set(name, {
      topic: name,
      numPartitions: options.numPartitions ?? -1,
      replicationFactor: options.replicationFactor ?? -1,
      configEntries: [
        { name: 'cleanup.policy', value: compacted ? 'compact' : 'delete' },
        {
          name: 'retention.ms',
          value: String(twin ? (options.deadLetterRetentionMs ?? THIRTY_DAYS_MS) : retentionMs),
        },
      ],
    });
  }

  const existing = new Set(await admin.listTopics());
  const missing = [...wanted.values()].filter((config) => !existing.has(config.topic));
  if (missing.length === 0) return [];
  // kafkajs resolves false instead of failing when every topic already exists (a concurrent creator).
  await admin.createTopics({ topics: missing, waitForLeaders: false });
  const names = missing.map((config) => config.topic);
  await waitForLeaders(admin, names);
  return names;
}

/** Metadata errors of a topic the controller created a moment ago, before every broker knows it. */
const NOT_YET = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/**
 * Waits until every partition of the topics has a leader. kafkajs' own wait (`waitForLeaders`)
 * retries only LEADER_NOT_AVAILABLE and fails on UNKNOWN_TOPIC_OR_PARTITION, which a busy broker
 * answers for a new topic as well; both mean "not yet" here, for up to `timeoutMs`.
 */
export async function waitForLeaders(
  admin: Pick<Admin, 'fetchTopicMetadata'>,
  topics: readonly string[],
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    let reason: unknown;
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: [...topics] });
      const ready = metadata.topics.every(
        (topic) =>
          topic.partitions.length > 0 &&
          topic.partitions.every((partition) => partition.leader >= 0),
      );
      if (ready) return;
      reason = new Error(`topics without leaders yet: ${topics.join(', ')}`);
    } catch (error) {
      if (!NOT_YET.has((error as { type?: string }).type ?? '')) throw error;
      reason = error;
    }
    if (Date.now() >= deadline) throw reason;
    await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
  }
}

/** A topic the deployment did not create, or created unlike the catalog. */
export class TopicMismatchError extends Error {
  // A plain field, not a parameter property: this module also runs under Node's type stripping.
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(
      `Kafka topics are not as the topic catalog says (KAFKA_TOPICS=verify: the deployment's topic Job creates them): ${problems.join('; ')}`,
    );
    this.name = 'TopicMismatchError';
    this.problems = problems;
  }
}

/**
 * Checks, without creating or changing anything, that the topics and their `.dlq` twins exist with
 * the catalog's cleanup policy (compacted or not). Throws {@link TopicMismatchError} naming every
 * missing or differently compacted topic: a compacted topic created with `delete` loses the state
 * it keeps, and the other way round loses events. A different retention is answered as a warning
 * only: operators may keep records longer or shorter than the catalog's default.
 */
export async function verifyTopics(
  admin: Pick<Admin, 'listTopics' | 'describeConfigs'>,
  topics: readonly TopicSpec[],
  options: Pick<EnsureTopicsOptions, 'deadLetters'> = {},
): Promise<{ warnings: string[] }> {
  // A twin's retention is the deployment's choice (the topic Job's `dlq.retentionMs`): not checked.
  const wanted = new Map(
    withTwins(topics, options.deadLetters).map(({ name, compacted, retentionMs, twin }) => [
      name,
      { compacted, retentionMs: twin ? undefined : retentionMs },
    ]),
  );
  const existing = new Set(await admin.listTopics());
  const problems = [...wanted.keys()]
    .filter((name) => !existing.has(name))
    .map((name) => `${name} is missing`);
  const present = [...wanted.keys()].filter((name) => existing.has(name));
  const warnings: string[] = [];
  if (present.length > 0) {
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: present.map((name) => ({
        type: TOPIC_RESOURCE,
        name,
        configNames: ['cleanup.policy', 'retention.ms'],
      })),
    });
    for (const resource of described.resources) {
      const want = wanted.get(resource.resourceName)!;
      const value = (key: string) =>
        resource.configEntries.find((entry) => entry.configName === key)?.configValue;
      const compacted = (value('cleanup.policy') ?? 'delete').split(',').includes('compact');
      if (compacted !== want.compacted)
        problems.push(
          `${resource.resourceName} has cleanup.policy=${value('cleanup.policy')}, the catalog says ${want.compacted ? 'compact' : 'delete'}`,
        );
      const retention = value('retention.ms');
      if (want.retentionMs !== undefined && retention !== String(want.retentionMs))
        warnings.push(
          `${resource.resourceName} keeps records ${retention} ms, the catalog says ${want.retentionMs}`,
        );
    }
  }
  if (problems.length > 0) throw new TopicMismatchError(problems.sort());
  return { warnings };
}
