/**
 * What the edge needs from the services behind it. Declared here, by the layer that uses them;
 * implemented by gRPC clients in adapters/ (and by fakes in unit tests: test/fakes.ts).
 * Each issue that adds an API family adds its port here.
 */

import type { AppAccess, AppAccessAdmin, CommerceBackend, FanTokens } from './commerce.js';
import type { WaitingRoomBackend } from './waiting-room.js';
import type { DealsBackend } from './deals.js';
import type { DiscoveryCatalog } from './discovery-catalog.js';
import type { PartnerCart } from './partner-cart.js';
import type { PartnerAdmin } from './partners.js';
import type { Publishing } from './publishing.js';
import type { Reconciliation } from './reconciliation.js';
import type { SecureEntryBackend } from './secure-entry.js';
import type { StripeWebhookSink } from './stripe-webhooks.js';
import type { TopPicksBackend } from './top-picks.js';

export interface NewApp {
  name: string;
  redirectUris: string[];
  /**
   * Per-app quota; each part defaults to the deployment's (by default 5,000 calls a day, 5 a
   * second, 20 tickets held at once per event).
   */
  quota?: Partial<AppQuota>;
  /** OAuth settings of the app; each off unless given (auth-gateway `AppOAuth`). */
  oauth?: Partial<AppOAuth>;
}

/** How an app's OAuth client is held to the authorization-code flow (auth-gateway `AppOAuth`). */
export interface AppOAuth {
  /** `/oauth/authorize` refuses a request without an S256 `code_challenge`. */
  requirePkce: boolean;
  /** Each refresh answers a new refresh token; a retired one presented again ends its tokens. */
  rotateRefreshTokens: boolean;
}

/** An app's quotas (auth-gateway `Quota`). */
export interface AppQuota {
  perDay: number;
  perSecond: number;
  /** Tickets held at once for one event (cart's held-ticket quota); 0 = no limit. */
  heldTicketsPerEvent: number;
}

export interface AppQuotaAdmin {
  /**
   * Sets the given parts (others keep their value); kind `not_found` for an unknown app,
   * `invalid_argument` for a value out of range.
   */
  setAppQuota(appId: string, change: Partial<AppQuota>): Promise<AppQuota>;
}

export interface AppOAuthAdmin {
  /** Sets the given settings (others keep their value); kind `not_found` for an unknown app. */
  setAppOAuth(appId: string, change: Partial<AppOAuth>): Promise<AppOAuth>;
}

export interface AppCredentials {
  /** Platform app id (what `PATCH /admin/v1/apps/{appId}/access` names). */
  appId?: string;
  apiKey: string;
  clientId: string;
  /** Shown once, at creation; auth-gateway keeps only its hash. */
  clientSecret: string;
  /**
   * Public id of the app for the tracking pixel (`tracking_id`): what pages anyone can read carry
   * instead of the API key. Absent for apps created before tracking ids existed.
   */
  trackingId?: string;
}

/** The app behind a tracking id (the tracking pixel). */
export interface TrackingIdCheck {
  valid: boolean;
  /** Empty when the id is unknown. */
  appId: string;
  access?: AppAccess;
}

/** The app behind a presented API key. */
export interface ApiKeyCheck {
  valid: boolean;
  /** Empty when the key is unknown. */
  appId: string;
  /** Restricted services the app is approved for; absent = none. */
  access?: AppAccess;
  /**
   * Tickets the app may hold at once for one event (its held-ticket quota; 0 = no limit), passed
   * on with every reserve; absent = cart's default.
   */
  heldTicketsPerEvent?: number;
}

/** Quota state after counting one call (what the `Rate-Limit*` headers show). */
export interface RateLimitState {
  limit: number;
  available: number;
  /** Epoch milliseconds when the window resets. */
  resetEpochMs: number;
  over: boolean;
  /** When `over`: ms until a call can pass again (the refusing window's end); absent = 1 s. */
  retryAfterMs?: number;
  /** Units taken, this call's included; more than 1 when a lease was taken ahead (`lease`). */
  granted?: number;
  /** How long the units taken ahead may be spent, ms from the answer. */
  leaseMs?: number;
}

export interface DeveloperAccess {
  createApp(input: NewApp): Promise<AppCredentials>;
  createFan(input: { email: string; password: string }): Promise<{ id: string }>;
  validateApiKey(apiKey: string): Promise<ApiKeyCheck>;
  /** The app behind a public tracking id; counts nothing against the app's quota. */
  resolveTrackingId(trackingId: string): Promise<TrackingIdCheck>;
  /**
   * Counts one call of the app. `lease`: units the caller would like to take ahead of its next
   * calls, to admit them itself (auth-gateway decides how many, in `granted`).
   */
  checkRateLimit(appId: string, options?: { lease?: number }): Promise<RateLimitState>;
  /**
   * Ends a fan's grant for the app with this OAuth client id: every token issued under it stops
   * working. Resolves with how many tokens were revoked; kind `not_found` for an unknown fan or app.
   */
  revokeGrant(fanId: string, clientId: string): Promise<{ revokedTokens: number }>;
  /**
   * Deletes a fan: the account, their grants and tokens (auth-gateway), then cart and secure-entry
   * blank the contact of the fan's orders from `fan-deleted`. Kind `not_found` for an unknown fan.
   */
  deleteFan(fanId: string): Promise<void>;
}

export interface Backends {
  developerAccess: DeveloperAccess;
  /** Deals search and deals administration (deals service; port in deals.ts). */
  deals: DealsBackend;
  /** Discovery v2 and international discovery (catalog-indexer; port in discovery-catalog.ts). */
  catalog: DiscoveryCatalog;
  /** The publishing API (publisher; port in publishing.ts). */
  publishing: Publishing;
  /** Partner registrations and imports (3p-connector; port in partners.ts). */
  partners: PartnerAdmin;
  /** Reconciliation cases and event reports (reconciler; port in reconciliation.ts). */
  reconciliation: Reconciliation;
  /** Top picks and resale listings (cart's TopPicksService; port in top-picks.ts). */
  topPicks: TopPicksBackend;
  /** The partner cart and operators' orders (cart's CartService; port in partner-cart.ts). */
  partnerCart: PartnerCart;
  /** On-sale waiting rooms (cart's WaitingRoomService; port in waiting-room.ts). */
  waitingRoom: WaitingRoomBackend;
  /** Commerce offers and shopping carts (cart; port in commerce.ts). */
  commerce: CommerceBackend;
  /** Fan access-token introspection (auth-gateway; port in commerce.ts). */
  fanTokens: FanTokens;
  /** Approval of apps for restricted services (auth-gateway; port in commerce.ts). */
  appAccess: AppAccessAdmin;
  /** OAuth settings of apps (auth-gateway; port above). */
  appOAuth: AppOAuthAdmin;
  /** Quotas of apps (auth-gateway; port above). */
  appQuota: AppQuotaAdmin;
  /** Secure-entry order read, secure render, gate scans and gates (secure-entry; port in secure-entry.ts). */
  secureEntry: SecureEntryBackend;
  /** Stripe's webhook events, verified at the edge (cart's HandleStripeEvent; port in stripe-webhooks.ts). */
  stripeWebhooks?: StripeWebhookSink;
}
