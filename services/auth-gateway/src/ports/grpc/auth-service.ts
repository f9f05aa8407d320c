import { authV1 } from '@marquee/proto';
import type { ApiKeyCheck, AppView, DeveloperAccess } from '../../app/developer-access.js';

const DAY_MS = 86_400_000;

const statusOf = {
  active: authV1.AppStatus.APP_STATUS_ACTIVE,
  suspended: authV1.AppStatus.APP_STATUS_SUSPENDED,
  unknown: authV1.AppStatus.APP_STATUS_UNSPECIFIED,
} as const;

export interface TokenIntrospection {
  introspect(accessToken: string): Promise<authV1.IntrospectTokenResponse>;
}

/** The OAuth side the admin API needs (`OAuthFlows`). */
export interface GrantRevocation {
  /** `not_found` (kind) when the fan or the app is unknown; resolves with the tokens revoked. */
  revokeGrantOfClient(clientId: string, fanId: string): Promise<number>;
}

/** The deletion of fans the admin API needs (`FanDeletion`). */
export interface FanDeleting {
  /** `not_found` (kind) when the fan is unknown. */
  deleteFan(fanId: string): Promise<{ deletedGrants: number }>;
}

/**
 * `marquee.auth.v1.AuthService`: maps messages to the use cases and back, nothing more. Errors
 * thrown by the use cases carry a `kind`, which the platform's server turns into the status code.
 */
export function authServiceImplementation(
  access: DeveloperAccess,
  tokens: TokenIntrospection,
  grants: GrantRevocation,
  fans: FanDeleting,
): authV1.AuthServiceServer {
  return {
    validateApiKey: (async (call: { request: authV1.ValidateApiKeyRequest }, callback) => {
      callback(null, toApiKeyCheck(await access.validateApiKey(call.request.apiKey)));
    }) as authV1.AuthServiceServer['validateApiKey'],
    introspectToken: (async (call: { request: authV1.IntrospectTokenRequest }, callback) => {
      callback(null, await tokens.introspect(call.request.accessToken));
    }) as authV1.AuthServiceServer['introspectToken'],
    checkRateLimit: (async (call: { request: authV1.CheckRateLimitRequest }, callback) => {
      const { appId, cost, lease } = call.request;
      callback(null, await access.checkRateLimit(appId, cost, { lease }));
    }) as authV1.AuthServiceServer['checkRateLimit'],
    createApp: (async (call: { request: authV1.CreateAppRequest }, callback) => {
      callback(null, await access.createApp(createAppInput(call.request)));
    }) as authV1.AuthServiceServer['createApp'],
    resolveTrackingId: (async (call: { request: authV1.ResolveTrackingIdRequest }, callback) => {
      callback(null, await access.resolveTrackingId(call.request.trackingId));
    }) as authV1.AuthServiceServer['resolveTrackingId'],
    createFan: (async (call: { request: authV1.CreateFanRequest }, callback) => {
      callback(null, await access.createFan(call.request));
    }) as authV1.AuthServiceServer['createFan'],
    revokeGrant: (async (call: { request: authV1.RevokeGrantRequest }, callback) => {
      const { clientId, fanId } = call.request;
      callback(null, { revokedTokens: await grants.revokeGrantOfClient(clientId, fanId) });
    }) as authV1.AuthServiceServer['revokeGrant'],
    deleteFan: (async (call: { request: authV1.DeleteFanRequest }, callback) => {
      callback(null, await fans.deleteFan(call.request.fanId));
    }) as authV1.AuthServiceServer['deleteFan'],
    setAppAccess: (async (call: { request: authV1.SetAppAccessRequest }, callback) => {
      const { appId, commerceShopping, partnerDistribution } = call.request;
      const granted = await access.setAppAccess(appId, {
        ...(commerceShopping !== undefined ? { commerceShopping } : {}),
        ...(partnerDistribution !== undefined ? { partnerDistribution } : {}),
      });
      callback(null, { appId, access: granted });
    }) as authV1.AuthServiceServer['setAppAccess'],
    setAppQuota: (async (call: { request: authV1.SetAppQuotaRequest }, callback) => {
      const { appId, perDay, perSecond, heldTicketsPerEvent } = call.request;
      const quota = await access.setAppQuota(appId, {
        ...(perDay !== undefined ? { perDay } : {}),
        ...(perSecond !== undefined ? { perSecond } : {}),
        ...(heldTicketsPerEvent !== undefined ? { heldTicketsPerEvent } : {}),
      });
      callback(null, { appId, ...quota });
    }) as authV1.AuthServiceServer['setAppQuota'],
    setAppOAuth: (async (call: { request: authV1.SetAppOAuthRequest }, callback) => {
      const { appId, requirePkce, rotateRefreshTokens } = call.request;
      const oauth = await access.setAppOAuth(appId, {
        ...(requirePkce !== undefined ? { requirePkce } : {}),
        ...(rotateRefreshTokens !== undefined ? { rotateRefreshTokens } : {}),
      });
      callback(null, { appId, oauth });
    }) as authV1.AuthServiceServer['setAppOAuth'],
    getApp: (async (call: { request: authV1.GetAppRequest }, callback) => {
      callback(null, toAppMessage(await access.getApp(call.request.appId)));
    }) as authV1.AuthServiceServer['getApp'],
    getAppAccess: (async (call: { request: authV1.GetAppAccessRequest }, callback) => {
      const { appId } = call.request;
      callback(null, { appId, access: await access.getAppAccess(appId) });
    }) as authV1.AuthServiceServer['getAppAccess'],
  };
}

function toApiKeyCheck(check: ApiKeyCheck): authV1.ValidateApiKeyResponse {
  return {
    valid: check.valid,
    appId: check.appId,
    clientId: check.clientId,
    status: statusOf[check.status],
    quota: { limit: check.quota.perDay, windowMs: DAY_MS },
    access: check.access,
    heldTicketsPerEvent: check.quota.heldTicketsPerEvent,
  };
}

/** The new app of a `CreateApp` request: quota parts and OAuth settings only when given. */
function createAppInput(
  request: authV1.CreateAppRequest,
): Parameters<DeveloperAccess['createApp']>[0] {
  const {
    name,
    redirectUris,
    quotaPerDay,
    quotaPerSecond,
    quotaHeldTicketsPerEvent,
    requirePkce,
    rotateRefreshTokens,
  } = request;
  return {
    name,
    redirectUris,
    quota: {
      ...(quotaPerDay !== undefined ? { perDay: quotaPerDay } : {}),
      ...(quotaPerSecond !== undefined ? { perSecond: quotaPerSecond } : {}),
      ...(quotaHeldTicketsPerEvent !== undefined
        ? { heldTicketsPerEvent: quotaHeldTicketsPerEvent }
        : {}),
    },
    oauth: {
      ...(requirePkce !== undefined ? { requirePkce } : {}),
      ...(rotateRefreshTokens !== undefined ? { rotateRefreshTokens } : {}),
    },
  };
}

function toAppMessage(app: AppView): authV1.GetAppResponse {
  return {
    appId: app.appId,
    name: app.name,
    clientId: app.clientId,
    trackingId: app.trackingId,
    redirectUris: app.redirectUris,
    status: statusOf[app.status],
    perDay: app.quota.perDay,
    perSecond: app.quota.perSecond,
    heldTicketsPerEvent: app.quota.heldTicketsPerEvent,
    access: app.access,
    oauth: app.oauth,
    createdAt: app.createdAt,
  };
}
