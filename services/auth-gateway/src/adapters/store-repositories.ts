import { retryingConflicts } from '@marquee/platform/kernel';
import { createOutboxEvent } from '@marquee/platform/outbox';
import { fanDeletedTopic } from '@marquee/proto/topics';
import type { AppRepository, FanRepository } from '../app/ports.js';
import { accessOf, oauthOf, quotaOf, validateQuota, type DeveloperApp } from '../domain/app.js';
import type { Fan } from '../domain/fan.js';
import { plain, type AuthStores } from './auth-stores.js';

/**
 * The repositories over the platform's VersionedStore. Written once, so the memory adapter (embedded
 * default, unit tests) and the Mongo adapter (distributed mode) cannot drift; one contract suite
 * (test/repositories-contract.ts) runs on both.
 */
export function createAppRepository(stores: Pick<AuthStores, 'apps'>): AppRepository {
  const first = async (filter: Partial<Record<keyof DeveloperApp, string>>) =>
    plain<DeveloperApp>((await stores.apps.find(filter as never, { limit: 1 }))[0]);
  return {
    async insert(app) {
      await stores.apps.insert(app);
    },
    byId: async (id) => plain<DeveloperApp>(await stores.apps.get(id)),
    byClientId: (clientId) => first({ clientId }),
    byApiKeyFingerprint: (apiKeyFingerprint) => first({ apiKeyFingerprint }),
    byTrackingId: (trackingId) => first({ trackingId }),
    async withoutTrackingId(limit) {
      // `null` matches a missing field (StoreFilter), on memory and Mongo alike.
      const docs = await stores.apps.find({ trackingId: null }, { limit });
      return docs.map((doc) => plain<DeveloperApp>(doc)!);
    },
    async assignTrackingId(id, trackingId) {
      let assigned = false;
      await stores.apps.modify(id, (app) => {
        // Re-asked on a concurrent write: the second look sees the other writer's id.
        assigned = app.trackingId === undefined;
        return assigned ? { ...app, trackingId } : undefined;
      });
      return assigned;
    },
    setAccess: (id, change) =>
      update(id, (app) => ({
        ...app,
        access: { ...accessOf(app), ...defined(change, 'boolean') },
      })),
    setOAuth: (id, change) =>
      update(id, (app) => ({ ...app, oauth: { ...oauthOf(app), ...defined(change, 'boolean') } })),
    setQuota: (id, change) =>
      update(id, (app) => ({
        ...app,
        quota: validateQuota({ ...quotaOf(app), ...defined(change, 'number') }),
      })),
  };

  /** Compare-and-set on the version read; a concurrent write (another change) makes it re-read. */
  async function update(
    id: string,
    change: (app: DeveloperApp) => DeveloperApp,
  ): Promise<DeveloperApp | undefined> {
    return retryingConflicts(async () => {
      const current = await stores.apps.get(id);
      if (!current) return undefined;
      const next = await stores.apps.update(
        id,
        current.version,
        (app) => change(app) as typeof app,
      );
      return plain<DeveloperApp>(next);
    });
  }
}

/** The boolean flags of a change; unset (or non-boolean) ones keep their stored value. */
/** The parts of a change given as `kind` values (a flag left out, or sent as null, keeps its value). */
const defined = <T extends object>(change: Partial<T>, kind: 'boolean' | 'number'): Partial<T> =>
  Object.fromEntries(Object.entries(change).filter(([, v]) => typeof v === kind)) as Partial<T>;

export function createFanRepository(stores: Pick<AuthStores, 'fans'>): FanRepository {
  return {
    async insert(fan) {
      await stores.fans.insert(fan);
    },
    byId: async (id) => plain<Fan>(await stores.fans.get(id)),
    byEmail: async (email) => plain<Fan>((await stores.fans.find({ email }, { limit: 1 }))[0]),
    async erase(id, at) {
      // Step 1: no e-mail and no password hash left in the document (a placeholder keeps the
      // unique e-mail index apart; it has no `@`, so no sign-in can match it).
      const blanked = await stores.fans.modify(id, (fan) =>
        fan.passwordHash === '' ? undefined : { ...fan, email: `deleted:${id}`, passwordHash: '' },
      );
      if (!blanked) return false;
      // Step 2: the deletion and its fact in one write. A repeat after a crash between the two
      // steps finds the blanked fan and finishes.
      const event = createOutboxEvent(fanDeletedTopic, {
        key: id,
        value: { fanId: id, deletedAt: at },
        time: at,
      });
      return stores.fans.delete(id, undefined, { events: [event] });
    },
  };
}
