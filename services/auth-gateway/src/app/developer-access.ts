import {
  accessOf,
  DEFAULT_OAUTH,
  DEFAULT_QUOTA,
  NO_ACCESS,
  oauthOf,
  quotaOf,
  type AppAccess,
  type AppOAuth,
  type AppStatus,
  validateNewApp,
  validateQuota,
  type DeveloperApp,
  type Quota,
} from '../domain/app.js';
import { AuthError } from '../domain/errors.js';
import { validateNewFan } from '../domain/fan.js';
import { DAY_MS, SECOND_MS, windowOf } from '../domain/rate-window.js';
import type { AppRepository, Clock, FanRepository, RateCounter, SecretHasher } from './ports.js';
import { fingerprint, newId, newSecret } from './secrets.js';

/** The most quota units one replica takes ahead of its calls per window. */
const MAX_LEASE = 64;
/** The most quota units a caller (the edge) takes ahead of its calls, per lease. */
const MAX_CALLER_LEASE = 64;

const definedOnly = <T extends object>(values: Partial<T> | undefined): Partial<T> =>
  Object.fromEntries(Object.entries(values ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;

export interface AppCredentials {
  appId: string;
  apiKey: string;
  clientId: string;
  /** Shown once; only its argon2id hash is kept. */
  clientSecret: string;
  /** Public: the tracking pixel's `tracking_id`, for pages anyone can read. */
  trackingId: string;
}

/** The app behind a tracking id (the tracking pixel). */
/** An app as operators see it: no secret (there is none to show: they are kept hashed). */
export interface AppView {
  appId: string;
  name: string;
  clientId: string;
  /** Empty only for an app the start-up backfill has not reached yet. */
  trackingId: string;
  redirectUris: string[];
  status: AppStatus;
  quota: Quota;
  access: AppAccess;
  oauth: AppOAuth;
  createdAt: Date;
}

export interface TrackingIdCheck {
  valid: boolean;
  appId: string;
  access: AppAccess;
}

const TRACKING_ID = /^mqt_[A-Za-z0-9_-]{22}$/;
/** A new public tracking id: `mqt_` and 16 random bytes (base64url). */
const newTrackingId = (): string => `mqt_${newSecret(16)}`;

export interface ApiKeyCheck {
  valid: boolean;
  appId: string;
  clientId: string;
  status: 'active' | 'suspended' | 'unknown';
  quota: Quota;
  /** Restricted services the app is approved for (all false for an unknown key). */
  access: AppAccess;
}

export interface RateLimitState {
  /** `Rate-Limit`: calls per day. */
  limit: number;
  /** `Rate-Limit-Available`: calls left today after this one. */
  available: number;
  /** `Rate-Limit-Reset`: end of the day window, epoch ms. */
  resetEpochMs: number;
  /** Over the daily or the per-second quota: refuse the call (it was not counted). */
  over: boolean;
  /** When `over`: ms until a call can pass (the refusing window's end); 0 otherwise. */
  retryAfterMs: number;
  /** Units taken, the call's own included (0 when `over`); more when a lease was taken ahead. */
  granted: number;
  /** How long units taken ahead may be spent (to the end of their per-second window), ms. */
  leaseMs: number;
}

export interface DeveloperAccessDeps {
  apps: AppRepository;
  fans: FanRepository;
  counter: RateCounter;
  hasher: SecretHasher;
  clock: Clock;
  /** Quota of new apps (configurable per deployment; stored per app). */
  defaultQuota?: Quota;
  /** How long an app's quota is reused by CheckRateLimit before it is re-read. */
  quotaCacheMs?: number;
}

/**
 * Developer apps, API keys and quotas. auth-gateway is the one place that counts calls, so the
 * count is right however many edge replicas there are (README, Rate limits).
 */
export class DeveloperAccess {
  /** Per app: its quota (or the read of it in progress) and until when it is reused. */
  private readonly quotas = new Map<string, { quota: Promise<Quota>; until: number }>();

  constructor(private readonly deps: DeveloperAccessDeps) {}

  /**
   * Registers an app; `quota` overrides the deployment's default per app (either part), `oauth`
   * turns OAuth settings on (each off unless given).
   */
  async createApp(input: {
    name: string;
    redirectUris: readonly string[];
    quota?: Partial<Quota>;
    oauth?: Partial<AppOAuth>;
  }): Promise<AppCredentials> {
    const valid = validateNewApp(input);
    const apiKey = newSecret(24);
    const clientSecret = newSecret(32);
    const app: DeveloperApp = {
      id: newId(),
      name: valid.name,
      clientId: newSecret(16),
      clientSecretHash: await this.deps.hasher.hash(clientSecret),
      apiKeyFingerprint: fingerprint(apiKey),
      trackingId: newTrackingId(),
      redirectUris: valid.redirectUris,
      status: 'active',
      quota: validateQuota({
        ...(this.deps.defaultQuota ?? DEFAULT_QUOTA),
        ...definedOnly(input.quota),
      }),
      access: { ...NO_ACCESS },
      oauth: { ...DEFAULT_OAUTH, ...definedOnly(input.oauth) },
      createdAt: this.deps.clock.now(),
    };
    await this.deps.apps.insert(app);
    return {
      appId: app.id,
      apiKey,
      clientId: app.clientId,
      clientSecret,
      trackingId: app.trackingId!,
    };
  }

  /**
   * Gives every app created before tracking ids existed one, as `createApp` does (run at start).
   * Safe with several replicas at once: each assignment is a compare-and-set that writes only to
   * an app still without an id, so an app gets exactly one, whoever wins. Resolves with how many
   * this call assigned.
   */
  async backfillTrackingIds(): Promise<number> {
    let assigned = 0;
    for (;;) {
      const batch = await this.deps.apps.withoutTrackingId(100);
      if (batch.length === 0) return assigned;
      for (const app of batch) {
        if (await this.deps.apps.assignTrackingId(app.id, newTrackingId())) assigned += 1;
      }
    }
  }

  /** The active app behind a public tracking id; counts nothing against its quota. */
  async resolveTrackingId(trackingId: string): Promise<TrackingIdCheck> {
    const app = TRACKING_ID.test(trackingId)
      ? await this.deps.apps.byTrackingId(trackingId)
      : undefined;
    if (!app || app.status !== 'active')
      return { valid: false, appId: '', access: { ...NO_ACCESS } };
    return { valid: true, appId: app.id, access: accessOf(app) };
  }

  async createFan(input: { email: string; password: string }): Promise<{ id: string }> {
    const valid = validateNewFan(input);
    if (await this.deps.fans.byEmail(valid.email)) {
      throw new AuthError('already_exists', 'a fan with this e-mail address exists');
    }
    const id = newId();
    await this.deps.fans.insert({
      id,
      email: valid.email,
      passwordHash: await this.deps.hasher.hash(valid.password),
      createdAt: this.deps.clock.now(),
    });
    return { id };
  }

  async validateApiKey(apiKey: string): Promise<ApiKeyCheck> {
    const app = apiKey ? await this.deps.apps.byApiKeyFingerprint(fingerprint(apiKey)) : undefined;
    if (!app) {
      return {
        valid: false,
        appId: '',
        clientId: '',
        status: 'unknown',
        quota: { perDay: 0, perSecond: 0, heldTicketsPerEvent: 0 },
        access: { ...NO_ACCESS },
      };
    }
    return {
      valid: app.status === 'active',
      appId: app.id,
      clientId: app.clientId,
      status: app.status,
      quota: quotaOf(app),
      access: accessOf(app),
    };
  }

  /**
   * Grants or withdraws restricted services (operators: admin API and CLI); flags not given keep
   * their value. Kind `not_found` for an unknown app. `validateApiKey` answers the new state at once
   * (it reads the app on every call); the edge's key cache shows it within its time-to-live.
   */
  async setAppAccess(appId: string, change: Partial<AppAccess>): Promise<AppAccess> {
    const app = appId ? await this.deps.apps.setAccess(appId, change) : undefined;
    if (!app) throw new AuthError('not_found', 'unknown app');
    return accessOf(app);
  }

  /**
   * Changes an app's quota (operators: admin API); parts not given keep their value. Kind
   * `not_found` for an unknown app, `invalid_argument` for a value out of range. This replica's
   * rate limiting sees it at once, the other replicas within their quota cache time, the edge
   * within its key cache's time-to-live.
   */
  async setAppQuota(appId: string, change: Partial<Quota>): Promise<Quota> {
    const app = appId ? await this.deps.apps.setQuota(appId, change) : undefined;
    if (!app) throw new AuthError('not_found', 'unknown app');
    this.quotas.delete(appId);
    return quotaOf(app);
  }

  /**
   * An app as operators see it (admin API, `marquee apps get`): everything but its secrets, which
   * are stored only as a fingerprint and a hash. Kind `not_found` for an unknown app.
   */
  async getApp(appId: string): Promise<AppView> {
    const app = appId ? await this.deps.apps.byId(appId) : undefined;
    if (!app) throw new AuthError('not_found', 'unknown app');
    return {
      appId: app.id,
      name: app.name,
      clientId: app.clientId,
      trackingId: app.trackingId ?? '',
      redirectUris: [...app.redirectUris],
      status: app.status,
      quota: quotaOf(app),
      access: accessOf(app),
      oauth: oauthOf(app),
      createdAt: app.createdAt,
    };
  }

  /** An app's access; kind `not_found` for an unknown app. */
  async getAppAccess(appId: string): Promise<AppAccess> {
    const app = appId ? await this.deps.apps.byId(appId) : undefined;
    if (!app) throw new AuthError('not_found', 'unknown app');
    return accessOf(app);
  }

  /**
   * Changes how the app's OAuth client is held to the flow (operators: admin API and CLI); settings
   * not given keep their value. Kind `not_found` for an unknown app. The flow reads the app on every
   * request, so the change applies to the next authorization or refresh.
   */
  async setAppOAuth(appId: string, change: Partial<AppOAuth>): Promise<AppOAuth> {
    const app = appId ? await this.deps.apps.setOAuth(appId, change) : undefined;
    if (!app) throw new AuthError('not_found', 'unknown app');
    return oauthOf(app);
  }

  /**
   * Counts one call (or `cost`) against the app's daily and per-second windows. A refused call is
   * given back, so a client hammering past its quota does not push its own reset further away.
   *
   * With `lease`, the caller (the edge) asks to take up to
   * that many units more ahead of its next calls and to admit those itself: granted only as a
   * small share of the per-second limit (a twentieth, at most 64; none for small limits), and
   * only while both windows have room for all of it, so a lease never admits a call the limits
   * would refuse and counting stays call by call near a limit. Leased units count as used.
   */
  async checkRateLimit(
    appId: string,
    cost = 1,
    options: { lease?: number } = {},
  ): Promise<RateLimitState> {
    const units = cost > 0 ? cost : 1;
    const quota = await this.quotaOf(appId);
    const ahead = Math.min(
      Math.max(0, Math.floor(options.lease ?? 0)),
      MAX_CALLER_LEASE,
      Math.floor(quota.perSecond / 20),
      Math.floor(quota.perDay / 100),
    );
    if (ahead > 0) {
      const leased = await this.take(appId, quota, units + ahead);
      if (!leased.over) return leased;
      // Not room for the lease in a window: count this call alone.
    }
    return this.take(appId, quota, units);
  }

  /** Takes `units` from both windows, or nothing (then `over`). */
  private async take(appId: string, quota: Quota, units: number): Promise<RateLimitState> {
    const now = this.deps.clock.now().getTime();
    const day = windowOf(appId, DAY_MS, now);
    const second = windowOf(appId, SECOND_MS, now);
    const { counter } = this.deps;
    // Units taken ahead per replica (see RateCounter): a small share of the limit, so a high
    // quota costs few counter writes and a small one stays counted call by call.
    const usedToday = await counter.add(day.key, units, day.resetEpochMs, {
      lease: Math.min(MAX_LEASE, Math.floor(quota.perDay / 100)),
    });
    let over = usedToday > quota.perDay;
    // When the call can pass again: the day's reset, or the second's when only that one refused.
    let retryAt = over ? day.resetEpochMs : 0;
    if (!over) {
      const usedThisSecond = await counter.add(second.key, units, second.resetEpochMs, {
        lease: Math.min(MAX_LEASE, Math.floor(quota.perSecond / 20)),
      });
      if (usedThisSecond > quota.perSecond) {
        over = true;
        retryAt = second.resetEpochMs;
        await counter.add(second.key, -units, second.resetEpochMs);
      }
    }
    const counted = over ? await counter.add(day.key, -units, day.resetEpochMs) : usedToday;
    return {
      limit: quota.perDay,
      available: Math.max(0, quota.perDay - counted),
      resetEpochMs: day.resetEpochMs,
      over,
      retryAfterMs: over ? Math.max(0, retryAt - now) : 0,
      granted: over ? 0 : units,
      leaseMs: Math.max(0, second.resetEpochMs - now),
    };
  }

  private async quotaOf(appId: string): Promise<Quota> {
    const now = this.deps.clock.now().getTime();
    const cached = this.quotas.get(appId);
    if (cached && cached.until > now) return cached.quota;
    // One read per app however many calls arrive while it runs (a burst after the reuse time
    // ended made one read per call); a failed read is not remembered.
    const quota = this.deps.apps.byId(appId).then((app) => {
      if (!app) throw new AuthError('not_found', 'unknown app');
      return app.quota;
    });
    const entry = { quota, until: now + (this.deps.quotaCacheMs ?? 30_000) };
    this.quotas.set(appId, entry);
    quota.catch(() => {
      if (this.quotas.get(appId) === entry) this.quotas.delete(appId);
    });
    return quota;
  }
}
