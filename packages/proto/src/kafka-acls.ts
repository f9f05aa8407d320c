/**
 * Kafka ACLs as code: who may do what on which topic and consumer group, derived from the topic
 * catalog's producers and consumers (topics.ts). Nothing here is written by hand per topic: a new
 * topic, producer or consumer in the catalog changes the list, and `pnpm generate` writes it to the
 * Helm chart (files/kafka-acls.json, applied by its kafka-acls Job and by deploy/local/infra.sh) and
 * to the AsyncAPI document (`x-kafka-acls` of each channel). docs/security.md, "Kafka", explains it.
 *
 * Self-contained (no imports): scripts load it with Node's type stripping.
 */

/** The catalog fields the ACLs are made from (a `TopicDef` of topics.ts fits). */
export interface AclTopic {
  readonly name: string;
  readonly producers: readonly string[];
  readonly consumers: readonly string[];
  /**
   * Whether analytics may read it: the catalog's own flag (topics.ts), false for a topic whose
   * records hold personal data in clear (default true).
   */
  readonly analyticsReadable?: boolean;
}

export type AclOperation = 'READ' | 'WRITE' | 'DESCRIBE' | 'DESCRIBE_CONFIGS' | 'CREATE' | 'DELETE';

/** One ALLOW binding; Kafka denies everything that no binding allows (StandardAuthorizer). */
export interface KafkaAcl {
  /** `User:<name>`: the SASL user (or mTLS principal) of one service, or `User:analytics`. */
  readonly principal: string;
  readonly resourceType: 'TOPIC' | 'GROUP';
  /** LITERAL: exactly that name; PREFIXED: every name starting with it. */
  readonly patternType: 'LITERAL' | 'PREFIXED';
  readonly resourceName: string;
  readonly operation: AclOperation;
}

/** The read-only principal of analytics teams. */
export const ANALYTICS_PRINCIPAL = 'analytics';

/**
 * Whether the analytics principal may read a catalog topic: as the catalog says (personal data in
 * clear is never readable; sealed fields are), and never a dead-letter twin (it copies any topic's
 * records).
 */
export function analyticsReadable(topic: Pick<AclTopic, 'name' | 'analyticsReadable'>): boolean {
  return !topic.name.endsWith('.dlq') && topic.analyticsReadable !== false;
}

/** Every service that produces or consumes a catalog topic: one Kafka principal each. */
export function kafkaServicePrincipals(topics: readonly AclTopic[]): string[] {
  return [...new Set(topics.flatMap((t) => [...t.producers, ...t.consumers]))].sort();
}

/**
 * The ACL bindings for the catalog, sorted (principal, resource, operation):
 *
 * - a producer: WRITE, DESCRIBE, DESCRIBE_CONFIGS and CREATE on its topic, DESCRIBE,
 *   DESCRIBE_CONFIGS and CREATE on its `.dlq` twin
 *   (the bus creates a missing topic and twin with the catalog's settings before first use);
 * - a consumer: READ, DESCRIBE, DESCRIBE_CONFIGS and CREATE on the topic, WRITE, DESCRIBE,
 *   DESCRIBE_CONFIGS and CREATE on its `.dlq`
 *   (records that fail for good, or whose signature does not verify, go there);
 * - each service: READ, DESCRIBE and DELETE on the consumer groups named after it (`<service>`,
 *   `<service>.<anything>`; global subscriptions make and delete groups of their own);
 * - analytics: READ and DESCRIBE on {@link analyticsReadable} topics, READ and DESCRIBE on the
 *   groups `analytics*`. It can write nothing.
 */
export function kafkaAcls(topics: readonly AclTopic[]): KafkaAcl[] {
  const acls = new Map<string, KafkaAcl>();
  const add = (
    service: string,
    resourceType: KafkaAcl['resourceType'],
    resourceName: string,
    operations: readonly AclOperation[],
    patternType: KafkaAcl['patternType'] = 'LITERAL',
  ) => {
    for (const operation of operations) {
      const acl = {
        principal: `User:${service}`,
        resourceType,
        patternType,
        resourceName,
        operation,
      };
      acls.set(JSON.stringify(acl), acl);
    }
  };
  for (const topic of topics) {
    const dlq = `${topic.name}.dlq`;
    // DESCRIBE_CONFIGS: a production service checks its topics' settings before first use
    // (KAFKA_TOPICS=verify, bus/ensure-topics.ts `verifyTopics`).
    for (const producer of topic.producers) {
      add(producer, 'TOPIC', topic.name, ['WRITE', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'CREATE']);
      add(producer, 'TOPIC', dlq, ['DESCRIBE', 'DESCRIBE_CONFIGS', 'CREATE']);
    }
    for (const consumer of topic.consumers) {
      add(consumer, 'TOPIC', topic.name, ['READ', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'CREATE']);
      add(consumer, 'TOPIC', dlq, ['WRITE', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'CREATE']);
    }
    if (analyticsReadable(topic))
      add(ANALYTICS_PRINCIPAL, 'TOPIC', topic.name, ['READ', 'DESCRIBE']);
  }
  for (const service of kafkaServicePrincipals(topics)) {
    add(service, 'GROUP', service, ['READ', 'DESCRIBE', 'DELETE'], 'PREFIXED');
  }
  add(ANALYTICS_PRINCIPAL, 'GROUP', ANALYTICS_PRINCIPAL, ['READ', 'DESCRIBE'], 'PREFIXED');
  const key = (acl: KafkaAcl) =>
    [acl.principal, acl.resourceType, acl.resourceName, acl.patternType, acl.operation].join(' ');
  return [...acls.values()].sort((a, b) => key(a).localeCompare(key(b)));
}

/** The bindings of one topic (its `.dlq` twin excluded), per principal: the AsyncAPI listing. */
export function topicAcls(
  acls: readonly KafkaAcl[],
  topic: string,
): Record<string, AclOperation[]> {
  const byPrincipal: Record<string, AclOperation[]> = {};
  for (const acl of acls) {
    if (acl.resourceType !== 'TOPIC' || acl.resourceName !== topic) continue;
    (byPrincipal[acl.principal] ??= []).push(acl.operation);
  }
  return byPrincipal;
}
