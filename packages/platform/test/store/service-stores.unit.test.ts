import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger/index.js';
import { createServiceStores, openServiceStores } from '../../src/store/service-stores.js';

interface Thing {
  id: string;
  version: number;
  name: string;
}

const logger = createLogger({ service: 'stores-test', level: 'silent' });

describe('createServiceStores without a database', () => {
  it('makes memory collections that enforce unique indexes and are listed for the relay', async () => {
    const sut = createServiceStores(undefined);
    const things = sut.collection<Thing>('things', [{ fields: { name: 1 }, unique: true }]);
    await things.insert({ id: 'a', name: 'x' });
    await expect(things.insert({ id: 'b', name: 'x' })).rejects.toMatchObject({
      kind: 'already_exists',
    });
    expect(sut.kind).toBe('memory');
    expect(sut.outboxSources).toHaveLength(1);
    await sut.ensureIndexes(); // nothing to build in memory
    expect(await things.get('a')).toMatchObject({ id: 'a', name: 'x', version: 1 });
  });

  it('chooses the memory adapter of what is not a collection', () => {
    const sut = createServiceStores(undefined);
    expect(sut.adapter({ memory: () => 'memory', mongo: () => 'mongo' })).toBe('memory');
  });
});

describe('openServiceStores', () => {
  it('builds the storage in one call and lists its collections for the relay', async () => {
    const opened = await openServiceStores({ mongo: undefined, logger }, (stores) => ({
      things: stores.collection<Thing>('things', [{ fields: { name: 1 }, unique: true }]),
      others: stores.collection<Thing>('others'),
      counter: stores.adapter({ memory: () => new Map<string, number>(), mongo: () => null }),
    }));
    expect(opened.kind).toBe('memory');
    expect(opened.outboxSources.map((source) => source.outboxName).sort()).toEqual([
      'others',
      'things',
    ]);
    expect(opened.storage.counter).toBeInstanceOf(Map);
    await opened.storage.things.insert({ id: 'a', name: 'x' });
    await expect(opened.storage.things.insert({ id: 'b', name: 'x' })).rejects.toMatchObject({
      kind: 'already_exists',
    });
  });
});
