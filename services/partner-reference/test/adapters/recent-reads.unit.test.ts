import { describe, expect, it, vi } from 'vitest';
import type { Repository } from '../../src/app/ports.js';
import { recentReads } from '../../src/adapters/recent-reads.js';
import type { VersionedRecord } from '../../src/domain/model.js';

interface Note extends VersionedRecord {
  text: string;
}

function storedNotes() {
  const rows = new Map<string, Note>();
  const inner: Repository<Note> = {
    get: vi.fn(async (id: string) => rows.get(id)),
    insert: vi.fn(async (record: Omit<Note, 'version'>) => {
      const note = { ...record, version: 1 };
      rows.set(note.id, note);
      return note;
    }),
    update: vi.fn(async (id: string, expectedVersion: number, next: Omit<Note, 'version'>) => {
      const current = rows.get(id);
      if (current?.version !== expectedVersion)
        throw Object.assign(new Error('stale'), { kind: 'aborted' });
      const note = { ...next, version: expectedVersion + 1 };
      rows.set(id, note);
      return note;
    }),
    find: vi.fn(async () => [...rows.values()]),
    count: vi.fn(async () => rows.size),
  };
  return { rows, inner };
}

describe('recentReads', () => {
  it('answers a record read within the last second from memory, then reads it again', async () => {
    const { rows, inner } = storedNotes();
    rows.set('a', { id: 'a', version: 1, text: 'one' });
    let now = 0;
    const sut = recentReads(inner, 1000, () => now);

    await sut.get('a');
    now = 999;
    rows.set('a', { id: 'a', version: 2, text: 'changed elsewhere' });
    expect((await sut.get('a'))?.text).toBe('one');
    expect(inner.get).toHaveBeenCalledTimes(1);

    now = 1000;
    expect((await sut.get('a'))?.text).toBe('changed elsewhere');
    expect(inner.get).toHaveBeenCalledTimes(2);
  });

  it('sees its own writes at once and forgets a record whose compare-and-set failed', async () => {
    const { rows, inner } = storedNotes();
    const now = 0;
    const sut = recentReads(inner, 1000, () => now);

    await sut.insert({ id: 'a', text: 'one' });
    await sut.update('a', 1, { id: 'a', text: 'two' });
    expect(await sut.get('a')).toEqual({ id: 'a', version: 2, text: 'two' });
    expect(inner.get).not.toHaveBeenCalled();

    rows.set('a', { id: 'a', version: 3, text: 'three' });
    await expect(sut.update('a', 2, { id: 'a', text: 'lost' })).rejects.toMatchObject({
      kind: 'aborted',
    });
    expect(await sut.get('a')).toEqual({ id: 'a', version: 3, text: 'three' });
  });

  it('does not remember a record that is not there, and passes queries through', async () => {
    const { rows, inner } = storedNotes();
    const sut = recentReads(inner, 1000, () => 0);

    expect(await sut.get('b')).toBeUndefined();
    rows.set('b', { id: 'b', version: 1, text: 'new' });
    expect((await sut.get('b'))?.text).toBe('new');
    expect(await sut.count({})).toBe(1);
    expect(await sut.find({})).toHaveLength(1);
  });
});
