/** A bearer token and how long the partner said it lives. */
export interface IssuedToken {
  accessToken: string;
  expiresInMs: number;
}

/**
 * One partner's OAuth access token: reused until 80 % of its lifetime has passed (so it never
 * expires in flight), fetched once for all concurrent callers (single flight), and dropped when the
 * partner refuses it (a 401) so the next caller fetches a new one.
 */
export class TokenCache {
  private current: { token: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly now: () => number = Date.now,
    private readonly refreshRatio = 0.8,
  ) {}

  async get(): Promise<string> {
    const current = this.current;
    if (current && this.now() < current.refreshAt) return current.token;
    this.pending ??= this.fetch();
    return this.pending;
  }

  /** Forgets `token` if it is still the cached one (another caller may have refreshed already). */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private async fetch(): Promise<string> {
    try {
      const issued = await this.issue();
      this.current = {
        token: issued.accessToken,
        refreshAt: this.now() + Math.max(0, issued.expiresInMs) * this.refreshRatio,
      };
      return issued.accessToken;
    } finally {
      this.pending = undefined;
    }
  }
}
