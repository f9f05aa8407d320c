import { createServiceStores } from '@marquee/platform/store';
import { describe, expect, it } from 'vitest';
import { createAuthStores } from '../src/adapters/auth-stores.js';
import { createOAuthRepository } from '../src/adapters/oauth-repository.js';
import { createFanRepository } from '../src/adapters/store-repositories.js';
import { FanDeletion } from '../src/app/fan-deletion.js';
import type { FanRepository } from '../src/app/ports.js';
import { aFan } from './repositories-contract.js';

const at = new Date('2026-05-06T07:08:09.000Z');

function setUp(fans?: (inner: FanRepository) => FanRepository) {
  const stores = createAuthStores(createServiceStores(undefined));
  const inner = createFanRepository(stores);
  const oauth = createOAuthRepository(stores);
  const sut = new FanDeletion({
    fans: fans ? fans(inner) : inner,
    oauth,
    clock: { now: () => at },
  });
  return { stores, fans: inner, oauth, sut };
}

const grantOf = (fanId: string) => ({
  id: `app-1:${fanId}`,
  appId: 'app-1',
  clientId: 'client-1',
  fanId,
  scope: 'all',
  approvedAt: at,
});

describe('FanDeletion', () => {
  it('deletes the grants, then the fan with fan-deleted; an unknown fan is not_found', async () => {
    const { stores, fans, oauth, sut } = setUp();
    const fan = aFan();
    await fans.insert(fan);
    const grant = grantOf(fan.id);
    await oauth.approveGrant(grant, { ...grant, userId: 'u', authorizedAt: at });

    expect(await sut.deleteFan(fan.id)).toEqual({ deletedGrants: 1 });
    expect(await fans.byId(fan.id)).toBeUndefined();
    expect(await oauth.getGrant(grant.id)).toBeUndefined();
    const events = (await stores.fans.pendingOutbox(10)).flatMap((p) => p.events);
    expect(events.map((e) => [e.topic, e.key])).toEqual([['fan-deleted', fan.id]]);

    await expect(sut.deleteFan(fan.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(sut.deleteFan('')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it("finishes on a repeat after the fan's removal failed half-way", async () => {
    let failOnce = true;
    const { stores, fans, sut } = setUp((inner) => ({
      ...inner,
      async erase(id, when) {
        if (failOnce) {
          failOnce = false;
          throw new Error('store down');
        }
        return inner.erase(id, when);
      },
    }));
    const fan = aFan();
    await fans.insert(fan);
    await expect(sut.deleteFan(fan.id)).rejects.toThrow('store down');
    expect(await fans.byId(fan.id)).toEqual(fan);

    expect(await sut.deleteFan(fan.id)).toEqual({ deletedGrants: 0 });
    expect(await fans.byId(fan.id)).toBeUndefined();
    const events = (await stores.fans.pendingOutbox(10)).flatMap((p) => p.events);
    expect(events.map((e) => e.key)).toEqual([fan.id]);
  });
});
