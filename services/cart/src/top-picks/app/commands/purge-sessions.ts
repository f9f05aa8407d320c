import type { TopPicksDeps } from '../types.js';

/** Deletes fan sessions expired for longer than `keepMs` (the slice's purge timer). */
export class PurgeSessions {
  constructor(private readonly deps: TopPicksDeps) {}

  async handle(keepMs: number, limit = 500): Promise<number> {
    return this.deps.sessions.purgeExpiredBefore(
      new Date(this.deps.clock.now().getTime() - keepMs),
      limit,
    );
  }
}
