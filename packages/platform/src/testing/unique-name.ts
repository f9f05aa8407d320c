import { randomBytes } from 'node:crypto';

/**
 * A name no other test run will use, e.g. `orders-m3x9k2a1-5f0c1e`: for Kafka topics and consumer
 * groups, databases and collections, so suites sharing one broker or server never see each
 * other's data. Only `[a-z0-9-]` survive, legal in every one of those.
 */
export function uniqueName(prefix: string): string {
  const safe =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'test';
  return `${safe}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}
