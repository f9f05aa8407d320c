import { AuthError } from '../domain/errors.js';
import type { Clock, FanRepository, OAuthRepository } from './ports.js';

export interface FanDeletionDeps {
  fans: FanRepository;
  oauth: OAuthRepository;
  clock: Clock;
}

/**
 * Deletes a fan (admin API; docs/security.md, "Personal data", Erasure): their sign-ins in
 * progress, codes, tokens and grants, then the account itself, whose removal records `fan-deleted`
 * for cart and secure-entry. In that order so that a repeat after a crash half-way finds the fan
 * and finishes; once the fan is gone the deletion is complete, and a repeat is `not_found`.
 */
export class FanDeletion {
  constructor(private readonly deps: FanDeletionDeps) {}

  /** `not_found` (kind) for an unknown fan; resolves with how many grants were deleted. */
  async deleteFan(fanId: string): Promise<{ deletedGrants: number }> {
    const fan = fanId ? await this.deps.fans.byId(fanId) : undefined;
    if (!fan) throw new AuthError('not_found', 'unknown fan', { fanId });
    const { grants } = await this.deps.oauth.deleteFanRecords(fan.id);
    // A deletion racing this one may have erased the fan meanwhile: the fan is gone either way.
    await this.deps.fans.erase(fan.id, this.deps.clock.now());
    return { deletedGrants: grants };
  }
}
