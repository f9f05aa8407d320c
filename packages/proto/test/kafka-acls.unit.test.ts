import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kafkaAcls, kafkaServicePrincipals, type KafkaAcl } from '../src/kafka-acls.js';
import { allTopics } from '../src/topics.js';

const acls = kafkaAcls(allTopics);
const allowed = (principal: string, resourceName: string, operation: KafkaAcl['operation']) =>
  acls.some(
    (acl) =>
      acl.principal === `User:${principal}` &&
      acl.resourceType === 'TOPIC' &&
      acl.resourceName === resourceName &&
      acl.operation === operation,
  );

describe('Kafka ACLs from the topic catalog', () => {
  it('lets only the producer of order-confirmed write it', () => {
    const writers = acls
      .filter((acl) => acl.resourceName === 'order-confirmed' && acl.operation === 'WRITE')
      .map((acl) => acl.principal);
    expect(writers).toEqual(['User:cart']);
  });

  it('lets each consumer read its topics and dead-letter into their twins, nothing else', () => {
    expect(allowed('secure-entry', 'order-confirmed', 'READ')).toBe(true);
    expect(allowed('secure-entry', 'order-confirmed.dlq', 'WRITE')).toBe(true);
    expect(allowed('secure-entry', 'order-confirmed', 'WRITE')).toBe(false);
    expect(allowed('3p-connector', 'order-confirmed', 'READ')).toBe(false);
  });

  it('gives analytics read on topics without personal data and no write anywhere', () => {
    const analytics = acls.filter((acl) => acl.principal === 'User:analytics');
    expect(analytics.every((acl) => ['READ', 'DESCRIBE'].includes(acl.operation))).toBe(true);
    expect(allowed('analytics', 'event-changed', 'READ')).toBe(true);
    expect(allowed('analytics', 'order-cancelled', 'READ')).toBe(true);
    // The buyer's contact on order-confirmed is sealed: the record itself is readable.
    expect(allowed('analytics', 'order-confirmed', 'READ')).toBe(true);
    // app-authorized carries a fan's ids in clear: the catalog marks it not readable.
    expect(allowed('analytics', 'app-authorized', 'READ')).toBe(false);
    for (const topic of allTopics)
      expect(allowed('analytics', topic.name, 'READ'), topic.name).toBe(topic.analyticsReadable);
    expect(analytics.some((acl) => acl.resourceName.endsWith('.dlq'))).toBe(false);
  });

  it('gives each service the consumer groups named after it', () => {
    for (const service of kafkaServicePrincipals(allTopics)) {
      expect(acls).toContainEqual({
        principal: `User:${service}`,
        resourceType: 'GROUP',
        patternType: 'PREFIXED',
        resourceName: service,
        operation: 'READ',
      });
    }
  });

  it('is what the chart file holds (pnpm generate)', () => {
    const file = JSON.parse(
      readFileSync(
        new URL('../../../deploy/helm/marquee/files/kafka-acls.json', import.meta.url),
        'utf8',
      ),
    ) as { acls: KafkaAcl[]; services: string[] };
    expect(file.acls).toEqual(acls);
    expect(file.services).toEqual(kafkaServicePrincipals(allTopics));
  });
});
