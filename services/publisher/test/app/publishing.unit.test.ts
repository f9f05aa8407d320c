import { describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../src/domain/published-event.js';
import type { PublishedEventRepository } from '../../src/app/ports.js';
import { createPublishing } from '../../src/app/publishing.js';

/** A map-backed repository with the port's version semantics; the real ones pass the contract suite. */
function inMemoryRepository(): PublishedEventRepository & { events: Map<string, PublishedEvent> } {
  const events = new Map<string, PublishedEvent>();
  const conflict = () => Object.assign(new Error('version conflict'), { kind: 'aborted' as const });
  return {
    events,
    get: async (id) => events.get(id),
    findByPublicationKey: async (appId, publicationKey, since) =>
      [...events.values()].find(
        (event) =>
          event.appId === appId &&
          event.publicationKey === publicationKey &&
          event.createdAt.getTime() >= since.getTime(),
      ),
    listByApp: async (appId, { limit, after }) =>
      [...events.values()]
        .filter((event) => event.appId === appId)
        .sort(
          (a, b) =>
            b.createdAt.getTime() - a.createdAt.getTime() ||
            (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
        )
        .filter(
          (event) =>
            !after ||
            event.createdAt.getTime() < after.createdAt.getTime() ||
            (event.createdAt.getTime() === after.createdAt.getTime() && event.id > after.id),
        )
        .slice(0, limit),
    create: async (event) => {
      events.set(event.id, { ...event, version: 1 });
      return events.get(event.id)!;
    },
    replace: async (event, expected) => {
      if (events.get(event.id)?.version !== expected) throw conflict();
      events.set(event.id, { ...event, version: expected + 1 });
      return events.get(event.id)!;
    },
    remove: async (event) => {
      if (events.get(event.id)?.version !== event.version) throw conflict();
      events.delete(event.id);
    },
  };
}

const body = (overrides: Record<string, unknown> = {}) => ({
  source: { id: 'acme', name: 'Acme' },
  names: { 'en-us': 'Spring Concert' },
  venue: { id: 'KovZpZAEdFtJ' },
  version: 1,
  ...overrides,
});

function setup() {
  const repository = inMemoryRepository();
  let n = 0;
  const clock = { now: new Date('2026-03-01T10:00:00Z') };
  const sut = createPublishing({
    repository,
    newId: () => `EvtId${String(++n).padStart(10, '0')}`,
    clock: { now: () => clock.now },
    publicationKeyWindowMs: 24 * 60 * 60_000,
  });
  return { sut, repository, clock };
}

describe('publish', () => {
  it('creates an event with a generated id and answers Success', async () => {
    const { sut, repository } = setup();

    const result = await sut.publish({ appId: 'app-1', body: body() });

    expect(result).toEqual({
      status: 'Success',
      id: 'EvtId0000000001',
      missingProperties: {},
      unknownProperties: {},
      version: 1,
    });
    expect(repository.events.get(result.id)).toMatchObject({
      appId: 'app-1',
      publisherVersion: 1,
      body: body(),
    });
  });

  it('answers SuccessWarning with the unknown and missing preferred properties, storing the unknown ones', async () => {
    const { sut, repository } = setup();
    const posted = { source: { id: 'acme', name: 'Acme' }, promo: 'x' };

    const result = await sut.publish({ appId: 'app-1', body: posted });

    expect(result).toMatchObject({
      status: 'SuccessWarning',
      message: expect.stringContaining('promo'),
      unknownProperties: { promo: 'x' },
      missingProperties: { venue: expect.any(String) },
    });
    expect(repository.events.get(result.id)?.body).toEqual(posted);
  });

  it('creates a new event each time the same body is posted', async () => {
    const { sut, repository } = setup();
    const first = await sut.publish({ appId: 'app-1', body: body() });
    const second = await sut.publish({ appId: 'app-1', body: body() });
    expect(first.id).not.toBe(second.id);
    expect(repository.events.size).toBe(2);
  });

  it('answers the event a publication key already created instead of creating another', async () => {
    const { sut, repository } = setup();
    const first = await sut.publish({ appId: 'app-1', body: body(), publicationKey: 'k1' });
    // The repeat after a crash between the write and the idempotency record.
    const again = await sut.publish({ appId: 'app-1', body: body(), publicationKey: 'k1' });

    expect(again).toEqual(first);
    expect(repository.events.size).toBe(1);
    expect(repository.events.get(first.id)?.publicationKey).toBe('k1');
  });

  it('keeps publication keys apart per app and forgets them after the window', async () => {
    const { sut, repository, clock } = setup();
    const first = await sut.publish({ appId: 'app-1', body: body(), publicationKey: 'k1' });
    const otherApp = await sut.publish({ appId: 'app-2', body: body(), publicationKey: 'k1' });
    clock.now = new Date(clock.now.getTime() + 24 * 60 * 60_000 + 1);
    const later = await sut.publish({ appId: 'app-1', body: body(), publicationKey: 'k1' });

    expect(new Set([first.id, otherApp.id, later.id]).size).toBe(3);
    expect(repository.events.size).toBe(3);
  });

  it('rejects an invalid body with the error items and stores nothing', async () => {
    const { sut, repository } = setup();
    await expect(sut.publish({ appId: 'app-1', body: body({ id: 'mine' }) })).rejects.toMatchObject(
      {
        kind: 'invalid_argument',
        details: { errors: [{ status: 'Rejected', code: 'ID_NOT_ALLOWED' }] },
      },
    );
    expect(repository.events.size).toBe(0);
  });

  it('refuses a call without an app', async () => {
    const { sut } = setup();
    await expect(sut.publish({ appId: '', body: body() })).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
  });
});

describe('update', () => {
  it('replaces the body when the version moves forward', async () => {
    const { sut, repository } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body() });

    const result = await sut.update({
      appId: 'app-1',
      id,
      body: body({ version: 2, names: { 'en-us': 'Renamed' } }),
    });

    expect(result).toMatchObject({ status: 'Success', id, version: 2 });
    expect(repository.events.get(id)).toMatchObject({
      publisherVersion: 2,
      body: { names: { 'en-us': 'Renamed' } },
    });
  });

  it.each([
    ['an equal version', 1],
    ['an older version', 0.5],
    ['no version', undefined],
  ])('rejects %s as stale (409) and keeps the stored state', async (_label, version) => {
    const { sut, repository } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body() });

    await expect(
      sut.update({ appId: 'app-1', id, body: body({ version, names: { 'en-us': 'X' } }) }),
    ).rejects.toMatchObject({
      kind: 'aborted',
      details: { errors: [{ code: 'STALE_VERSION' }] },
    });
    expect(repository.events.get(id)?.body).toEqual(body());
  });

  it('accepts any update of an event published without a version', async () => {
    const { sut } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body({ version: undefined }) });
    await expect(
      sut.update({ appId: 'app-1', id, body: body({ version: undefined }) }),
    ).resolves.toMatchObject({ version: 2 });
  });

  it("answers not found for another app's event, and for unknown ids", async () => {
    const { sut } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body() });
    await expect(
      sut.update({ appId: 'app-2', id, body: body({ version: 9 }) }),
    ).rejects.toMatchObject({
      kind: 'not_found',
      details: { errors: [{ code: 'EVENT_NOT_FOUND' }] },
    });
    await expect(
      sut.update({ appId: 'app-1', id: 'unknown', body: body({ version: 9 }) }),
    ).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('validates the new body with the same rules', async () => {
    const { sut } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body() });
    await expect(
      sut.update({
        appId: 'app-1',
        id,
        body: body({ version: 2, place: { names: { 'en-us': 'Park' } } }),
      }),
    ).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: { errors: [{ code: 'VENUE_AND_PLACE' }] },
    });
  });
});

describe('update racing another change', () => {
  /** A repository where another writer slips in `interloper` right before our first replace. */
  function racing(interloper: Record<string, unknown>, interloperVersion: number) {
    const { sut, repository } = setup();
    const replace = repository.replace.bind(repository);
    let raced = false;
    repository.replace = async (event, expected) => {
      if (!raced) {
        raced = true;
        const current = repository.events.get(event.id)!;
        await replace(
          { ...current, body: interloper, publisherVersion: interloperVersion },
          expected,
        );
      }
      return replace(event, expected);
    };
    return { sut, repository };
  }

  it('re-reads after losing the race and applies a version that is still newer', async () => {
    const { sut, repository } = racing(body({ version: 2 }), 2);
    const { id } = await sut.publish({ appId: 'app-1', body: body() });

    const result = await sut.update({
      appId: 'app-1',
      id,
      body: body({ version: 3, url: 'https://final' }),
    });

    expect(result.version).toBe(3);
    expect(repository.events.get(id)).toMatchObject({
      publisherVersion: 3,
      body: { url: 'https://final' },
    });
  });

  it('turns a lost race against a newer version into STALE_VERSION', async () => {
    const { sut, repository } = racing(body({ version: 5 }), 5);
    const { id } = await sut.publish({ appId: 'app-1', body: body() });

    await expect(
      sut.update({ appId: 'app-1', id, body: body({ version: 3 }) }),
    ).rejects.toMatchObject({
      kind: 'aborted',
      details: { errors: [{ code: 'STALE_VERSION' }] },
    });
    expect(repository.events.get(id)?.publisherVersion).toBe(5);
  });

  it('gives up with the conflict after losing three races in a row', async () => {
    const { sut, repository } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body() });
    let tries = 0;
    repository.replace = async () => {
      tries += 1;
      throw Object.assign(new Error('version conflict'), { kind: 'aborted' as const });
    };

    await expect(sut.update({ appId: 'app-1', id, body: body({ version: 2 }) })).rejects.toThrow(
      'version conflict',
    );
    expect(tries).toBe(3);
  });

  it('does not retry a stale version', async () => {
    const { sut, repository } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body({ version: 4 }) });
    let reads = 0;
    const get = repository.get.bind(repository);
    repository.get = async (eventId) => {
      reads += 1;
      return get(eventId);
    };

    await expect(
      sut.update({ appId: 'app-1', id, body: body({ version: 3 }) }),
    ).rejects.toMatchObject({ details: { errors: [{ code: 'STALE_VERSION' }] } });
    expect(reads).toBe(1);
  });
});

describe('get', () => {
  it('reads back the event as published, for its app only', async () => {
    const { sut } = setup();
    const posted = body({ promo: 'x' });
    const { id } = await sut.publish({ appId: 'app-1', body: posted });

    expect(await sut.get({ appId: 'app-1', id })).toMatchObject({ id, version: 1, body: posted });
    await expect(sut.get({ appId: 'app-2', id })).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('remove', () => {
  it('deletes the event of the owning app', async () => {
    const { sut, repository } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body({ version: 3 }) });
    await sut.remove({ appId: 'app-1', id, publisherVersion: 3 });
    expect(repository.events.has(id)).toBe(false);
    await expect(sut.remove({ appId: 'app-1', id })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('rejects a deletion with an older publisher version', async () => {
    const { sut, repository } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body({ version: 3 }) });
    await expect(sut.remove({ appId: 'app-1', id, publisherVersion: 2 })).rejects.toMatchObject({
      kind: 'aborted',
    });
    expect(repository.events.has(id)).toBe(true);
  });

  it("refuses to delete another app's event", async () => {
    const { sut, repository } = setup();
    const { id } = await sut.publish({ appId: 'app-1', body: body() });
    await expect(sut.remove({ appId: 'app-2', id })).rejects.toMatchObject({ kind: 'not_found' });
    expect(repository.events.has(id)).toBe(true);
  });
});

describe('list', () => {
  /** Publishes `count` events of `appId`, one second apart unless `sameInstant`; their ids, oldest first. */
  async function publishMany(
    sut: ReturnType<typeof setup>['sut'],
    clock: ReturnType<typeof setup>['clock'],
    appId: string,
    count: number,
    sameInstant = false,
  ) {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      if (!sameInstant) clock.now = new Date(clock.now.getTime() + 1_000);
      ids.push((await sut.publish({ appId, body: body({ names: { 'en-us': `E${i}` } }) })).id);
    }
    return ids;
  }

  it("pages through the app's events newest first, without other apps' or deleted ones", async () => {
    const { sut, clock } = setup();
    const ids = await publishMany(sut, clock, 'app-1', 5);
    await publishMany(sut, clock, 'app-2', 2);
    await sut.remove({ appId: 'app-1', id: ids[2]! });

    const first = await sut.list({ appId: 'app-1', pageSize: 2, pageToken: '' });
    const second = await sut.list({ appId: 'app-1', pageSize: 2, pageToken: first.nextPageToken });

    expect(first.events.map((e) => e.id)).toEqual([ids[4], ids[3]]);
    expect(first.events[0]).toMatchObject({ appId: 'app-1', body: { names: { 'en-us': 'E4' } } });
    expect(second.events.map((e) => e.id)).toEqual([ids[1], ids[0]]);
    expect(second.nextPageToken).toBe('');
  });

  it('keeps its place when events are published between two pages', async () => {
    const { sut, clock } = setup();
    const ids = await publishMany(sut, clock, 'app-1', 4);
    const first = await sut.list({ appId: 'app-1', pageSize: 2, pageToken: '' });
    await publishMany(sut, clock, 'app-1', 3);

    const second = await sut.list({ appId: 'app-1', pageSize: 2, pageToken: first.nextPageToken });

    expect(second.events.map((e) => e.id)).toEqual([ids[1], ids[0]]);
  });

  it('orders events of one instant by id and pages through them', async () => {
    const { sut, clock } = setup();
    const ids = await publishMany(sut, clock, 'app-1', 5, true);
    const seen: string[] = [];
    let token = '';
    do {
      const page = await sut.list({ appId: 'app-1', pageSize: 2, pageToken: token });
      seen.push(...page.events.map((e) => e.id));
      token = page.nextPageToken;
    } while (token);
    expect(seen).toEqual([...ids].sort());
  });

  it('answers 20 events by default and at most 100 a page', async () => {
    const { sut, clock } = setup();
    await publishMany(sut, clock, 'app-1', 101);

    expect((await sut.list({ appId: 'app-1', pageSize: 0, pageToken: '' })).events).toHaveLength(
      20,
    );
    const largest = await sut.list({ appId: 'app-1', pageSize: 500, pageToken: '' });
    expect(largest.events).toHaveLength(100);
    expect(largest.nextPageToken).not.toBe('');
  });

  it('answers an empty page for an app without events', async () => {
    const { sut } = setup();
    expect(await sut.list({ appId: 'app-1', pageSize: 10, pageToken: '' })).toEqual({
      events: [],
      nextPageToken: '',
    });
  });

  it.each([
    ['not base64url', 'not a token!'],
    ['not JSON', Buffer.from('{{').toString('base64url')],
    ['the wrong shape', Buffer.from(JSON.stringify({ a: 1 })).toString('base64url')],
    ['a bad id', Buffer.from(JSON.stringify([1, 'no/pe'])).toString('base64url')],
    ['too long', 'A'.repeat(201)],
  ])('rejects a cursor that is %s with INVALID_CURSOR', async (_label, pageToken) => {
    const { sut } = setup();
    await expect(sut.list({ appId: 'app-1', pageSize: 10, pageToken })).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: {
        errors: [
          {
            status: 'Rejected',
            code: 'INVALID_CURSOR',
            invalidProperties: { cursor: expect.any(String) },
          },
        ],
      },
    });
  });

  it('rejects a negative page size and a call without an app', async () => {
    const { sut } = setup();
    await expect(sut.list({ appId: 'app-1', pageSize: -1, pageToken: '' })).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: {
        errors: [{ code: 'INVALID_PROPERTY', invalidProperties: { size: expect.any(String) } }],
      },
    });
    await expect(sut.list({ appId: '', pageSize: 1, pageToken: '' })).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
  });
});
