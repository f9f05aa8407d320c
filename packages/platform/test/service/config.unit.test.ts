import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { readModelConsumerGroup, serviceConfigSchema } from '../../src/service/config.js';

describe('serviceConfigSchema', () => {
  const sut = serviceConfigSchema({ name: 'catalog-indexer', httpPort: 8083, grpcPort: 50053 });

  it('defaults name, ports and a per-service database name Mongo accepts', () => {
    expect(loadConfig(sut, {})).toMatchObject({
      SERVICE_NAME: 'catalog-indexer',
      HTTP_PORT: 8083,
      GRPC_PORT: 50053,
      MONGO_DB: 'catalog_indexer',
    });
  });

  it('refuses a database name Mongo would not accept', () => {
    expect(() => loadConfig(sut, { MONGO_DB: 'a-b' })).toThrow(/MONGO_DB/);
  });
});

describe('readModelConsumerGroup', () => {
  it('keeps the service name for the default database and ties other databases to their own group', () => {
    const config = { SERVICE_NAME: 'catalog-indexer', MONGO_DB: 'catalog_indexer' };
    expect(readModelConsumerGroup(config, 'catalog_indexer')).toBe('catalog-indexer');
    expect(
      readModelConsumerGroup({ ...config, MONGO_DB: 'e2e1234_catalog_indexer' }, 'catalog_indexer'),
    ).toBe('catalog-indexer.e2e1234_catalog_indexer');
  });
});
