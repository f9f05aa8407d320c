import { retryingConflicts } from '@marquee/platform/kernel';
import { createOutboxEvent } from '@marquee/platform/outbox';
import { isVersionConflict, type StoreFilter, type Versioned } from '@marquee/platform/store';
import { appAuthorizedTopic } from '@marquee/proto/topics';
import type { KeyStore, OAuthRepository } from '../app/ports.js';
import { newSecret } from '../app/secrets.js';
import { plain, type AuthStores, type Collection } from './auth-stores.js';

/** The flow's records over the platform's VersionedStore: memory and Mongo from one implementation. */
export function createOAuthRepository(stores: AuthStores): OAuthRepository {
  const { interactions, codes, tokens, grants } = stores;
  return {
    ...interactionRecords(interactions),
    ...codeRecords(codes),
    ...tokenRecords(tokens),
    ...grantRecords(grants),

    async purgeExpired(cutoffs) {
      let purged = 0;
      for (const [store, before] of [
        [codes, cutoffs.codes],
        [tokens, cutoffs.tokens],
      ] as const) {
        const expired = await store.find({ expiresAt: { $lt: before } }, { limit: 500 });
        for (const doc of expired) if (await store.delete(doc.id)) purged++;
      }
      return purged;
    },

    async deleteFanRecords(fanId) {
      // Sign-ins in progress and codes first, so no new token or grant comes of them; grants last.
      await deleteAll(interactions, fanId);
      await deleteAll(codes, fanId);
      await deleteAll(tokens, fanId);
      return { grants: await deleteAll(grants, fanId) };
    },
  };
}

function interactionRecords(
  interactions: AuthStores['interactions'],
): Pick<
  OAuthRepository,
  'saveInteraction' | 'getInteraction' | 'deleteInteraction' | 'purgeInteractions'
> {
  return {
    async saveInteraction(interaction) {
      await interactions.insert(interaction);
    },
    getInteraction: async (id) => plain(await interactions.get(id)),
    async deleteInteraction(id) {
      await interactions.delete(id);
    },
    async purgeInteractions(now) {
      const expired = await interactions.find({ expiresAt: { $lt: now } }, { limit: 500 });
      for (const doc of expired) await interactions.delete(doc.id);
      return expired.length;
    },
  };
}

function codeRecords(
  codes: AuthStores['codes'],
): Pick<OAuthRepository, 'saveCode' | 'getCode' | 'markCodeUsed' | 'markCodeReplayed'> {
  return {
    async saveCode(code) {
      await codes.insert(code);
    },
    getCode: async (id) => plain(await codes.get(id)),
    async markCodeUsed(id, at) {
      const current = await codes.get(id);
      if (!current || current.usedAt) return false;
      try {
        // Compare-and-set on the version read: of two concurrent exchanges exactly one wins.
        await codes.update(id, current.version, (doc) => ({ ...doc, usedAt: at }));
        return true;
      } catch (error) {
        if (isVersionConflict(error)) return false;
        throw error;
      }
    },
    async markCodeReplayed(id, at) {
      await retryingConflicts(async () => {
        const current = await codes.get(id);
        if (!current || current.replayedAt) return;
        await codes.update(id, current.version, (doc) => ({ ...doc, replayedAt: at }));
      });
    },
  };
}

function tokenRecords(
  tokens: AuthStores['tokens'],
): Pick<OAuthRepository, 'saveToken' | 'getToken' | 'markTokenRotated' | 'revokeTokens'> {
  return {
    async saveToken(token) {
      await tokens.insert(token);
    },
    getToken: async (id) => plain(await tokens.get(id)),
    async markTokenRotated(id, at) {
      const current = await tokens.get(id);
      if (!current || current.rotatedAt || current.revokedAt) return false;
      try {
        // Compare-and-set on the version read: of two concurrent refreshes exactly one wins.
        await tokens.update(id, current.version, (doc) => ({ ...doc, rotatedAt: at }));
        return true;
      } catch (error) {
        if (isVersionConflict(error)) return false;
        throw error;
      }
    },
    async revokeTokens(by, at) {
      const family = await tokens.find(by);
      let revoked = 0;
      for (const token of family) {
        if (token.revokedAt) continue;
        await retryingConflicts(async () => {
          const current = await tokens.get(token.id);
          if (!current || current.revokedAt) return;
          await tokens.update(token.id, current.version, (doc) => ({ ...doc, revokedAt: at }));
          revoked++;
        });
      }
      return revoked;
    },
  };
}

function grantRecords(
  grants: AuthStores['grants'],
): Pick<OAuthRepository, 'getGrant' | 'approveGrant' | 'revokeGrant'> {
  return {
    getGrant: async (id) => plain(await grants.get(id)),
    async approveGrant(grant, fact) {
      const event = createOutboxEvent(appAuthorizedTopic, {
        key: fact.clientId,
        value: { ...fact },
        time: fact.authorizedAt,
      });
      await retryingConflicts(async () => {
        const current = await grants.get(grant.id);
        if (!current) {
          await grants.insert(grant, { events: [event] });
          return;
        }
        // A re-approval (also after a revocation) is a new authorization: state and fact together.
        await grants.update(grant.id, current.version, { ...grant }, { events: [event] });
      });
    },
    async revokeGrant(id, at) {
      await retryingConflicts(async () => {
        const current = await grants.get(id);
        if (!current || current.revokedAt) return;
        await grants.update(id, current.version, (doc) => ({ ...doc, revokedAt: at }));
      });
    },
  };
}

/** Deletes the fan's documents of a collection, a batch at a time; resolves with how many. */
async function deleteAll<T extends Versioned & { fanId?: string }>(
  store: Collection<T>,
  fanId: string,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const batch = await store.find({ fanId } as StoreFilter<T>, { limit: 500 });
    for (const doc of batch) if (await store.delete(doc.id)) deleted++;
    if (batch.length < 500) return deleted;
  }
}

/**
 * The `user_id` key: `USER_ID_KEY` when configured; otherwise created once and kept in `settings`,
 * so ids stay stable across restarts (the first writer wins when replicas start together).
 */
export function createKeyStore(stores: AuthStores, configured?: string): KeyStore {
  let cached: Promise<string> | undefined = configured ? Promise.resolve(configured) : undefined;
  const load = async (): Promise<string> => {
    const existing = await stores.settings.get('user-id-key');
    if (existing) return existing.value;
    try {
      await stores.settings.insert({ id: 'user-id-key', value: newSecret(32) });
    } catch (error) {
      if ((error as { kind?: string }).kind !== 'already_exists') throw error;
    }
    return (await stores.settings.get('user-id-key'))!.value;
  };
  return {
    userIdKey() {
      cached ??= load().catch((error: unknown) => {
        cached = undefined;
        throw error;
      });
      return cached;
    },
  };
}
