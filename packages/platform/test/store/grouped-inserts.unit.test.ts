import { describe, expect, it } from 'vitest';
import { GroupedInserts } from '../../src/store/mongo/grouped-inserts.js';
import type { Collection, PendingMarker } from '../../src/store/mongo/stored.js';

/** A markers collection that answers each command when told, refusing ids already stored. */
function markersCollection() {
  const stored = new Set<string>();
  const commands: string[][] = [];
  const pending: (() => void)[] = [];
  const run = (ids: string[]) =>
    new Promise<void>((resolve, reject) => {
      commands.push(ids);
      pending.push(() => {
        const clashes = ids.map((id, index) => ({ id, index })).filter(({ id }) => stored.has(id));
        for (const id of ids) stored.add(id);
        if (clashes.length === 0) resolve();
        else if (ids.length === 1) reject(Object.assign(new Error('E11000'), { code: 11000 }));
        else
          reject(
            Object.assign(new Error('bulk'), {
              writeErrors: clashes.map(({ index }) => ({ index, code: 11000 })),
            }),
          );
      });
    });
  const collection = {
    insertOne: (doc: PendingMarker) => run([doc._id]),
    insertMany: (docs: PendingMarker[]) => run(docs.map((d) => d._id)),
  } as unknown as Collection<PendingMarker>;
  const answer = () => pending.shift()!();
  return { collection, commands, stored, answer };
}

const marker = (id: string): PendingMarker => ({ _id: id, dueAt: new Date() });

describe('GroupedInserts', () => {
  it('sends the first marker alone and those asked for meanwhile together', async () => {
    const markers = markersCollection();
    const inserts = new GroupedInserts(() => markers.collection);
    const first = inserts.insert(marker('a'));
    const rest = ['b', 'c', 'd'].map((id) => inserts.insert(marker(id)));
    expect(markers.commands).toEqual([['a']]);
    markers.answer();
    await first;
    await Promise.resolve();
    expect(markers.commands).toEqual([['a'], ['b', 'c', 'd']]);
    markers.answer();
    await Promise.all(rest);
    expect([...markers.stored].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reports a duplicate marker to its own caller only', async () => {
    const markers = markersCollection();
    markers.stored.add('taken');
    const inserts = new GroupedInserts(() => markers.collection);
    const first = inserts.insert(marker('x'));
    const group = [inserts.insert(marker('taken')), inserts.insert(marker('y'))];
    markers.answer();
    await first;
    await Promise.resolve();
    markers.answer();
    const [taken, y] = await Promise.allSettled(group);
    expect(taken).toMatchObject({ status: 'rejected', reason: { code: 11000 } });
    expect(y?.status).toBe('fulfilled');
    // Alone, a clash is the command's own error.
    const again = inserts.insert(marker('y'));
    markers.answer();
    await expect(again).rejects.toMatchObject({ code: 11000 });
  });
});
