import { describe, expect, it } from 'vitest';
import { createServiceStores } from './service-stores.js';

interface Thing {
  id: string;
  version: number;
  name: string;
}

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
});
