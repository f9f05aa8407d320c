import { oauthOf, type DeveloperApp } from '../domain/app.js';
import { AuthError } from '../domain/errors.js';
import { normalizeEmail } from '../domain/fan.js';
import {
  ACCESS_TOKEN_TTL_S,
  CODE_TTL_S,
  grantIdOf,
  INTERACTION_TTL_S,
  isLive,
  REFRESH_TOKEN_TTL_S,
  SCOPE_ALL,
  type AuthorizationCode,
  type Interaction,
  type IssuedToken,
} from '../domain/oauth.js';
import { DAY_MS, windowOf } from '../domain/rate-window.js';
import { throttleAddress } from '../domain/throttle-address.js';
import type {
  AppRepository,
  Clock,
  FanRepository,
  KeyStore,
  OAuthRepository,
  RateCounter,
  SecretHasher,
} from './ports.js';
import { fingerprint, keyedHash, newSecret, safeEqual } from './secrets.js';

/** One window of a throttle: at most `limit` attempts per fixed `windowMs` (epoch-aligned). */
export interface ThrottleTier {
  limit: number;
  windowMs: number;
}

/**
 * Login throttling (OWASP ASVS 2.2.1). Each sign-in attempt is counted before the password is
 * checked, in every tier of every scope at once; an attempt that would exceed any tier is refused
 * (and given back). Tiers of growing windows make the delays progressive: after a few failures a
 * caller waits for the minute to end, after more for the quarter hour, then the hour. Successful
 * sign-ins are given back. The strictest scope is one account from one address, so a stranger who
 * knows a fan's e-mail slows down only his own guesses, not the fan's sign-in from elsewhere.
 */
export interface ThrottlePolicy {
  /** Attempts at one account from one address. */
  accountPerAddress: readonly ThrottleTier[];
  /** Attempts at one account from all addresses (guessing spread over many addresses). */
  account: readonly ThrottleTier[];
  /** Attempts from one address over all accounts (one address trying many accounts). */
  address: readonly ThrottleTier[];
  /** Attempts one sign-in page allows; then the page is void and the flow starts again. */
  attemptsPerPage: number;
  /** Sign-in pages one IP may open per minute (each stores an interaction until it expires). */
  pagesPerIpPerMinute: number;
  /**
   * Client authentications one IP may have failing or in flight per minute (each costs an argon2
   * verification): counted before argon2 runs, so parallel guesses cannot exceed it either.
   */
  clientFailuresPerIpPerMinute: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export const DEFAULT_THROTTLE: ThrottlePolicy = {
  accountPerAddress: [
    { limit: 5, windowMs: MINUTE_MS },
    { limit: 10, windowMs: 15 * MINUTE_MS },
    { limit: 20, windowMs: HOUR_MS },
    { limit: 40, windowMs: DAY_MS },
  ],
  account: [
    { limit: 30, windowMs: 15 * MINUTE_MS },
    { limit: 100, windowMs: DAY_MS },
  ],
  address: [
    { limit: 50, windowMs: 15 * MINUTE_MS },
    { limit: 200, windowMs: DAY_MS },
  ],
  attemptsPerPage: 5,
  pagesPerIpPerMinute: 60,
  clientFailuresPerIpPerMinute: 20,
};

/** Longest e-mail an account can have (RFC 5321), longest password (validateNewFan). */
export const MAX_EMAIL_LENGTH = 254;
export const MAX_PASSWORD_LENGTH = 256;

/** A granted attempt: `release` gives it back (it succeeded, so it must not count). */
interface Reservation {
  release(): Promise<void>;
}

export interface OAuthFlowsDeps {
  apps: AppRepository;
  fans: FanRepository;
  oauth: OAuthRepository;
  keys: KeyStore;
  hasher: SecretHasher;
  counter: RateCounter;
  clock: Clock;
  throttle?: ThrottlePolicy;
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  state?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/** A browser's interaction as the pages see it: the cookie to set and the CSRF token for the forms. */
export interface BrowserSession {
  cookie: string;
  csrf: string;
  interaction: Interaction;
}

export interface UserInfo {
  user_id: string;
  email: string;
  /** Deprecated in the fans' OAuth API: always false. */
  email_verified: false;
}

export interface Introspection {
  clientId: string;
  appId: string;
  fanId: string;
  userId: string;
  scope: string;
  expiresAt: Date;
  email: string;
}

/** How long a verified client secret is trusted without argon2 (see authenticateClient). */
const VERIFIED_SECRET_TTL_MS = 5 * 60_000;

/**
 * How long after it expired a code is kept (see purgeExpired): a code is the root of its token
 * family and carries the family's replay mark, so it stays as long as a refresh token of the family
 * can live (refresh tokens of a family never outlive the first one), and a day more.
 */
const CODE_KEEP_MS = REFRESH_TOKEN_TTL_S * 1000 + DAY_MS;
/** Expired tokens are kept a day (a late replay of a retired refresh token still finds it). */
const TOKEN_KEEP_MS = DAY_MS;

const addSeconds = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/**
 * The fans' side of the authorization-code flow (the fans' OAuth API, `/oauth/*`): interactions of
 * the login and consent pages, sign-in with throttling, approvals, codes (single use, replay
 * revokes the family), tokens (stored as fingerprints), user info and revocation. The protocol
 * itself (parameter validation, grant dispatch, PKCE, RFC 6749 errors) is @node-oauth/oauth2-server's,
 * wired to these methods in ports/http/oauth-model.ts.
 */
export class OAuthFlows {
  private dummyHash: Promise<string> | undefined;
  /** Random per process: the remembered proofs are useless outside it. */
  private readonly proofKey = newSecret(32);
  private readonly verified = new Map<string, { proof: string; until: number }>();

  constructor(private readonly deps: OAuthFlowsDeps) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  /** An active app by client id (authorize step: no secret involved). */
  async client(clientId: string): Promise<DeveloperApp | undefined> {
    const app = clientId ? await this.deps.apps.byClientId(clientId) : undefined;
    return app?.status === 'active' ? app : undefined;
  }

  /**
   * Client authentication of the token endpoint (RFC 6749 section 2.3.1) against the argon2id hash.
   * A secret that verified is remembered for a few minutes as an HMAC under a random key of this
   * process (never the secret, never stored), so a busy client does not pay argon2 on every call;
   * any other secret always goes through argon2, so guessing stays as slow as the hash makes it.
   *
   * Every argon2 verification is first counted against the caller's address (see
   * {@link ThrottlePolicy.clientFailuresPerIpPerMinute}): over the limit, it throws
   * `resource_exhausted` (with `retryAfterSeconds`) before argon2 runs, however many guesses
   * arrive at once. A success gives its count back.
   */
  async authenticateClient(
    clientId: string,
    secret: string,
    address: string,
  ): Promise<DeveloperApp | undefined> {
    if (!secret) return undefined;
    const app = await this.client(clientId);
    const proof = app ? keyedHash(this.proofKey, app.clientSecretHash, secret) : undefined;
    const now = this.now().getTime();
    if (app && proof) {
      const remembered = this.verified.get(app.clientId);
      if (remembered && remembered.until > now && safeEqual(remembered.proof, proof)) return app;
    }
    const policy = this.deps.throttle ?? DEFAULT_THROTTLE;
    const reservation = await this.reserve(
      [
        {
          key: `client-auth:ip:${throttleAddress(address)}`,
          limit: policy.clientFailuresPerIpPerMinute,
          windowMs: MINUTE_MS,
        },
      ],
      'Too many failed client authentications from this address; try again later',
    );
    if (!app || !proof) {
      // Same cost whether or not the client exists: no client-id oracle through timing.
      await this.deps.hasher.verify(await this.dummy(), secret);
      return undefined;
    }
    if (!(await this.deps.hasher.verify(app.clientSecretHash, secret))) return undefined;
    await reservation.release();
    if (this.verified.size >= 10_000) this.verified.clear();
    this.verified.set(app.clientId, { proof, until: now + VERIFIED_SECRET_TTL_MS });
    return app;
  }

  /**
   * Counts one attempt in every tier at once (atomic per counter), before the attempt runs. If any
   * tier is over its limit the attempt is refused and given back everywhere: however many
   * attempts arrive together, at most `limit` of them ever run in a window.
   */
  private async reserve(
    tiers: ReadonlyArray<{ key: string; limit: number; windowMs: number }>,
    refusal: string,
  ): Promise<Reservation> {
    const { counter } = this.deps;
    const nowMs = this.now().getTime();
    const windows = tiers.map((tier) => ({ ...tier, ...windowOf(tier.key, tier.windowMs, nowMs) }));
    const counts = await Promise.all(
      windows.map((window) => counter.add(window.key, 1, window.resetEpochMs)),
    );
    const giveBack = async () => {
      await Promise.all(windows.map((window) => counter.add(window.key, -1, window.resetEpochMs)));
    };
    const over = windows.filter((window, i) => counts[i]! > window.limit);
    if (over.length > 0) {
      await giveBack();
      throw new AuthError('resource_exhausted', refusal, {
        retryAfterSeconds: Math.max(
          1,
          Math.ceil((Math.max(...over.map((window) => window.resetEpochMs)) - nowMs) / 1000),
        ),
      });
    }
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        await giveBack();
      },
    };
  }

  // --- the login and consent pages -------------------------------------------------------------

  /**
   * Opens a sign-in interaction. Each one is stored until it expires, so opening them is limited
   * per client IP: an anonymous caller cannot fill the database with abandoned interactions.
   */
  async startInteraction(request: AuthorizationRequest, ip: string): Promise<BrowserSession> {
    const policy = this.deps.throttle ?? DEFAULT_THROTTLE;
    const nowMs = this.now().getTime();
    const window = windowOf(`authorize:ip:${throttleAddress(ip)}`, 60_000, nowMs);
    const opened = await this.deps.counter.add(window.key, 1, window.resetEpochMs);
    if (opened > policy.pagesPerIpPerMinute) {
      throw new AuthError(
        'resource_exhausted',
        'Too many sign-in pages opened. Try again in a minute.',
        {
          retryAfterSeconds: Math.ceil((window.resetEpochMs - nowMs) / 1000),
        },
      );
    }
    return this.newSession({
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      scope: request.scope,
      ...(request.state !== undefined ? { state: request.state } : {}),
      ...(request.codeChallenge !== undefined ? { codeChallenge: request.codeChallenge } : {}),
      ...(request.codeChallengeMethod !== undefined
        ? { codeChallengeMethod: request.codeChallengeMethod }
        : {}),
    });
  }

  /**
   * The interaction behind a form post: the cookie must name a live one and the form's CSRF token
   * must be its own (OWASP: synchronizer token bound to the session). Anything else is refused.
   */
  async resume(cookie: string | undefined, csrf: string | undefined): Promise<Interaction> {
    const refused = new AuthError(
      'permission_denied',
      'This sign-in page has expired or was not opened by this browser. Start again from the app.',
    );
    if (!cookie || !csrf) throw refused;
    const interaction = await this.deps.oauth.getInteraction(fingerprint(cookie));
    if (!interaction || interaction.expiresAt <= this.now()) throw refused;
    if (!safeEqual(interaction.csrfHash, fingerprint(csrf))) throw refused;
    return interaction;
  }

  /**
   * Checks the fan's password. The attempt is counted before the password is looked at — against
   * the page (at most {@link ThrottlePolicy.attemptsPerPage}, then the page is void), and in the
   * progressive tiers per account and address — and refused when over, so neither parallel
   * posts nor one page's cookie and CSRF token give more attempts (a refused attempt gives no
   * oracle: the password is not checked). A success gives its count back. On success the
   * interaction is replaced by a new one (new cookie and CSRF token: no session fixation) that
   * carries the fan.
   */
  async signIn(
    interaction: Interaction,
    input: { email: string; password: string; ip: string },
  ): Promise<BrowserSession> {
    const policy = this.deps.throttle ?? DEFAULT_THROTTLE;
    const { counter } = this.deps;
    // One counter for the page's whole life (not an aligned window it could straddle).
    const pageAttempts = await counter.add(
      `login:page:${interaction.id}`,
      1,
      interaction.expiresAt.getTime(),
    );
    if (pageAttempts > policy.attemptsPerPage) {
      await this.deps.oauth.deleteInteraction(interaction.id);
      throw new AuthError(
        'permission_denied',
        'Too many sign-in attempts on this page. Start again from the app.',
      );
    }
    const incorrect = new AuthError('unauthenticated', 'Incorrect email or password.');
    const email = normalizeEmail(input.email);
    // No account has a longer e-mail or password: refused without a counter key or a hash.
    if (
      !email ||
      email.length > MAX_EMAIL_LENGTH ||
      !input.password ||
      input.password.length > MAX_PASSWORD_LENGTH
    )
      throw incorrect;
    // Counter keys hold a fingerprint of the e-mail: bounded, and no address in the database.
    const account = fingerprint(email);
    const address = throttleAddress(input.ip);
    const reservation = await this.reserve(
      [
        ...policy.accountPerAddress.map((tier) => ({
          ...tier,
          key: `login:acct-addr:${account}:${address}`,
        })),
        ...policy.account.map((tier) => ({ ...tier, key: `login:acct:${account}` })),
        ...policy.address.map((tier) => ({ ...tier, key: `login:addr:${address}` })),
      ],
      'Too many sign-in attempts. Try again later.',
    );
    const fan = await this.deps.fans.byEmail(email);
    const ok = fan
      ? await this.deps.hasher.verify(fan.passwordHash, input.password)
      : await this.deps.hasher.verify(await this.dummy(), input.password).then(() => false);
    if (!fan || !ok) throw incorrect;
    await reservation.release();
    await this.deps.oauth.deleteInteraction(interaction.id);
    const { id: _id, csrfHash: _csrf, expiresAt: _expires, ...request } = interaction;
    return this.newSession({ ...request, fanId: fan.id });
  }

  /** The fan approved on the consent page: the grant is stored and `app-authorized` recorded with it. */
  async approve(interaction: Interaction): Promise<void> {
    const fanId = this.signedIn(interaction);
    const app = await this.client(interaction.clientId);
    if (!app) throw new AuthError('not_found', 'This app is no longer registered.');
    // A fan deleted since signing in grants nothing.
    if (!(await this.deps.fans.byId(fanId)))
      throw new AuthError('permission_denied', 'Sign in first.');
    const now = this.now();
    await this.deps.oauth.approveGrant(
      {
        id: grantIdOf(app.id, fanId),
        appId: app.id,
        clientId: app.clientId,
        fanId,
        scope: interaction.scope,
        approvedAt: now,
      },
      {
        clientId: app.clientId,
        appId: app.id,
        fanId,
        userId: await this.userIdFor(app.clientId, fanId),
        scope: interaction.scope,
        authorizedAt: now,
      },
    );
  }

  /** The interaction is over (approved or declined): its cookie can never be replayed. */
  async finish(interaction: Interaction): Promise<void> {
    await this.deps.oauth.deleteInteraction(interaction.id);
  }

  signedIn(interaction: Interaction): string {
    if (!interaction.fanId) throw new AuthError('permission_denied', 'Sign in first.');
    return interaction.fanId;
  }

  /** What the pages show: the app's name and, once signed in, the fan's e-mail. */
  async pageContext(interaction: Interaction): Promise<{ appName: string; email?: string }> {
    const app = await this.client(interaction.clientId);
    if (!app) throw new AuthError('not_found', 'This app is no longer registered.');
    const fan = interaction.fanId ? await this.deps.fans.byId(interaction.fanId) : undefined;
    return { appName: app.name, ...(fan ? { email: fan.email } : {}) };
  }

  /**
   * Housekeeping (FerretDB has no TTL indexes): abandoned interactions, tokens a day after they
   * expired, and codes once no token of their family can be alive — kept that long so a late replay
   * (of the code or of a retired refresh token) still marks the family and revokes its tokens.
   */
  async purgeExpired(): Promise<number> {
    const now = this.now().getTime();
    const interactions = await this.deps.oauth.purgeInteractions(new Date(now));
    const expired = await this.deps.oauth.purgeExpired({
      codes: new Date(now - CODE_KEEP_MS),
      tokens: new Date(now - TOKEN_KEEP_MS),
    });
    return interactions + expired;
  }

  // --- codes and tokens --------------------------------------------------------------------------

  newCredential(): string {
    return newSecret(32);
  }

  async saveCode(
    code: string,
    input: {
      app: DeveloperApp;
      fanId: string;
      redirectUri: string;
      scope: string;
      codeChallenge?: string;
      codeChallengeMethod?: string;
    },
  ): Promise<AuthorizationCode> {
    const record: AuthorizationCode = {
      id: fingerprint(code),
      appId: input.app.id,
      clientId: input.app.clientId,
      fanId: input.fanId,
      grantId: grantIdOf(input.app.id, input.fanId),
      redirectUri: input.redirectUri,
      scope: input.scope,
      ...(input.codeChallenge ? { codeChallenge: input.codeChallenge } : {}),
      ...(input.codeChallengeMethod && input.codeChallenge
        ? { codeChallengeMethod: input.codeChallengeMethod }
        : {}),
      expiresAt: addSeconds(this.now(), CODE_TTL_S),
    };
    await this.deps.oauth.saveCode(record);
    return record;
  }

  /**
   * The code presented at the token endpoint. A code that was already exchanged is a replay
   * (RFC 6749 section 4.1.2, RFC 9700 section 4.5): it is refused and every token issued from it is
   * revoked.
   */
  async codeForExchange(code: string): Promise<AuthorizationCode | undefined> {
    const record = await this.deps.oauth.getCode(fingerprint(code));
    if (!record) return undefined;
    if (record.usedAt) {
      await this.replayed(record.id);
      return undefined;
    }
    return record;
  }

  /** Marks the code used; false when another exchange got there first (then that is a replay too). */
  async consumeCode(codeId: string): Promise<boolean> {
    const won = await this.deps.oauth.markCodeUsed(codeId, this.now());
    if (!won) await this.replayed(codeId);
    return won;
  }

  /**
   * The refresh token presented at the token endpoint, and whether its app rotates refresh tokens.
   * A retired (rotated) refresh token presented again is a replay (RFC 9700, section 4.14.2): the
   * attacker or the legitimate client holds a token the other one already used, and the server
   * cannot tell which is which, so it is refused and every token of its family is revoked — the
   * same rule as a replayed code. Undefined for anything not a live refresh token.
   */
  async refreshTokenForGrant(
    value: string,
  ): Promise<{ token: IssuedToken; rotate: boolean } | undefined> {
    if (!value) return undefined;
    const token = await this.deps.oauth.getToken(fingerprint(value));
    if (token?.kind !== 'refresh') return undefined;
    if (token.rotatedAt) {
      await this.replayed(token.codeId);
      return undefined;
    }
    if (!isLive(token, this.now())) return undefined;
    const app = await this.deps.apps.byId(token.appId);
    return { token, rotate: oauthOf(app).rotateRefreshTokens };
  }

  /**
   * Retires a refresh token that is being exchanged for a new one (compare-and-set). False when
   * another refresh with the same token got there first: that is a replay too, and the family is
   * revoked, including the tokens the winner saves afterwards (saveTokens checks the mark).
   */
  async rotateRefreshToken(token: IssuedToken): Promise<boolean> {
    const won = await this.deps.oauth.markTokenRotated(token.id, this.now());
    if (!won) await this.replayed(token.codeId);
    return won;
  }

  /** Marks the family replayed (on its code), then revokes every token of it. */
  private async replayed(codeId: string): Promise<void> {
    const now = this.now();
    await this.deps.oauth.markCodeReplayed(codeId, now);
    await this.deps.oauth.revokeTokens({ codeId }, now);
  }

  /**
   * Stores the fingerprints of newly issued tokens. If the family was marked replayed meanwhile (a
   * race between two exchanges of a code, or two refreshes with one refresh token), the new tokens
   * are revoked at once: the mark is set before the family's tokens are looked up, and read here
   * after the new ones are stored, so whichever comes second sees the other.
   */
  async saveTokens(input: {
    accessToken: string;
    refreshToken?: string;
    app: DeveloperApp;
    fanId: string;
    codeId: string;
    scope: string;
    /** A rotated refresh token keeps the expiry of the one it replaces (the family's lifetime). */
    refreshTokenExpiresAt?: Date;
  }): Promise<{ accessTokenExpiresAt: Date; refreshTokenExpiresAt?: Date }> {
    const now = this.now();
    const base = {
      appId: input.app.id,
      clientId: input.app.clientId,
      fanId: input.fanId,
      grantId: grantIdOf(input.app.id, input.fanId),
      codeId: input.codeId,
      scope: input.scope,
    };
    const accessTokenExpiresAt = addSeconds(now, ACCESS_TOKEN_TTL_S);
    await this.deps.oauth.saveToken({
      ...base,
      id: fingerprint(input.accessToken),
      kind: 'access',
      expiresAt: accessTokenExpiresAt,
    });
    let refreshTokenExpiresAt: Date | undefined;
    if (input.refreshToken) {
      refreshTokenExpiresAt = input.refreshTokenExpiresAt ?? addSeconds(now, REFRESH_TOKEN_TTL_S);
      await this.deps.oauth.saveToken({
        ...base,
        id: fingerprint(input.refreshToken),
        kind: 'refresh',
        expiresAt: refreshTokenExpiresAt,
      });
    }
    const code = await this.deps.oauth.getCode(input.codeId);
    if (code?.replayedAt) await this.deps.oauth.revokeTokens({ codeId: input.codeId }, now);
    return { accessTokenExpiresAt, ...(refreshTokenExpiresAt ? { refreshTokenExpiresAt } : {}) };
  }

  /** A live token of the kind asked, or undefined (unknown, expired, revoked, or of the other kind). */
  async liveToken(value: string, kind: IssuedToken['kind']): Promise<IssuedToken | undefined> {
    if (!value) return undefined;
    const token = await this.deps.oauth.getToken(fingerprint(value));
    return isLive(token, this.now()) && token.kind === kind ? token : undefined;
  }

  /** `/oauth/info/<access_token>`: the fans' OAuth API's user information. */
  async userInfo(accessToken: string): Promise<UserInfo | undefined> {
    const found = await this.introspect(accessToken);
    if (!found) return undefined;
    return { user_id: found.userId, email: found.email, email_verified: false };
  }

  async introspect(accessToken: string): Promise<Introspection | undefined> {
    const token = await this.liveToken(accessToken, 'access');
    if (!token) return undefined;
    // A suspended (or deleted) app's tokens stop working at once, not when they expire.
    const app = await this.deps.apps.byId(token.appId);
    if (app?.status !== 'active') return undefined;
    const fan = await this.deps.fans.byId(token.fanId);
    if (!fan) return undefined;
    return {
      clientId: token.clientId,
      appId: token.appId,
      fanId: token.fanId,
      userId: await this.userIdFor(token.clientId, token.fanId),
      scope: token.scope,
      expiresAt: token.expiresAt,
      email: fan.email,
    };
  }

  /**
   * The `user_id` of user information: a hash of the client id and the fan's id — keyed (HMAC), so
   * it is stable per app, differs across apps, and cannot be computed or linked without the key.
   */
  async userIdFor(clientId: string, fanId: string): Promise<string> {
    return keyedHash(await this.deps.keys.userIdKey(), clientId, fanId);
  }

  /** A fan withdraws an app's access: the grant and every token issued under it stop working. */
  async revokeGrant(appId: string, fanId: string): Promise<number> {
    const id = grantIdOf(appId, fanId);
    const now = this.now();
    await this.deps.oauth.revokeGrant(id, now);
    return this.deps.oauth.revokeTokens({ grantId: id }, now);
  }

  /**
   * An operator withdraws an app's access for a fan (admin API), the app named by its client id.
   * `not_found` when the fan or the app is unknown; an absent grant revokes nothing (idempotent).
   * Resolves with how many tokens were revoked.
   */
  async revokeGrantOfClient(clientId: string, fanId: string): Promise<number> {
    const app = clientId ? await this.deps.apps.byClientId(clientId) : undefined;
    if (!app) throw new AuthError('not_found', 'unknown app', { clientId });
    const fan = fanId ? await this.deps.fans.byId(fanId) : undefined;
    if (!fan) throw new AuthError('not_found', 'unknown fan', { fanId });
    return this.revokeGrant(app.id, fan.id);
  }

  /**
   * RFC 7009 revocation by the app: revoking any token of a grant ends the grant (its section 2.1
   * allows it, and it is what a "sign out of this app" needs). Unknown tokens or tokens of another
   * client are ignored, as the RFC requires (no oracle).
   */
  async revokeByToken(app: DeveloperApp, value: string): Promise<void> {
    const token = value ? await this.deps.oauth.getToken(fingerprint(value)) : undefined;
    if (!token || token.clientId !== app.clientId) return;
    await this.revokeGrant(token.appId, token.fanId);
  }

  private async newSession(
    request: Omit<Interaction, 'id' | 'csrfHash' | 'expiresAt'>,
  ): Promise<BrowserSession> {
    const cookie = newSecret(32);
    const csrf = newSecret(32);
    const interaction: Interaction = {
      ...request,
      scope: request.scope || SCOPE_ALL,
      id: fingerprint(cookie),
      csrfHash: fingerprint(csrf),
      expiresAt: addSeconds(this.now(), INTERACTION_TTL_S),
    };
    await this.deps.oauth.saveInteraction(interaction);
    return { cookie, csrf, interaction };
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.deps.hasher.hash(newSecret(16));
    return this.dummyHash;
  }
}
