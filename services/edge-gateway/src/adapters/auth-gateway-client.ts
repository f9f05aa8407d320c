import { authV1 } from '@marquee/proto';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import type {
  AppCredentials,
  AppOAuth,
  AppOAuthAdmin,
  AppQuotaAdmin,
  DeveloperAccess,
  NewApp,
  RateLimitState,
} from '../app/backends.js';
import type { AppAccess, AppAccessAdmin, AppDetails, FanTokens } from '../app/commerce.js';

const accessOf = (access: authV1.AppAccess | undefined): AppAccess => ({
  commerceShopping: access?.commerceShopping ?? false,
  partnerDistribution: access?.partnerDistribution ?? false,
});

const oauthChange = (change: Partial<AppOAuth>) => ({
  ...(change.requirePkce !== undefined ? { requirePkce: change.requirePkce } : {}),
  ...(change.rotateRefreshTokens !== undefined
    ? { rotateRefreshTokens: change.rotateRefreshTokens }
    : {}),
});

const oauthOf = (oauth: authV1.AppOAuth | undefined): AppOAuth => ({
  requirePkce: oauth?.requirePkce ?? false,
  rotateRefreshTokens: oauth?.rotateRefreshTokens ?? false,
});

/** A new app → `CreateApp`: only the quota parts and OAuth settings given are sent. */
const createAppRequest = (input: NewApp) => ({
  name: input.name,
  redirectUris: input.redirectUris,
  ...(input.quota?.perDay !== undefined ? { quotaPerDay: input.quota.perDay } : {}),
  ...(input.quota?.perSecond !== undefined ? { quotaPerSecond: input.quota.perSecond } : {}),
  ...(input.quota?.heldTicketsPerEvent !== undefined
    ? { quotaHeldTicketsPerEvent: input.quota.heldTicketsPerEvent }
    : {}),
  ...oauthChange(input.oauth ?? {}),
});

const toCredentials = (created: authV1.CreateAppResponse): AppCredentials => ({
  appId: created.appId,
  apiKey: created.apiKey,
  clientId: created.clientId,
  clientSecret: created.clientSecret,
  ...(created.trackingId ? { trackingId: created.trackingId } : {}),
});

const toAppDetails = (app: authV1.GetAppResponse): AppDetails => ({
  appId: app.appId,
  name: app.name,
  clientId: app.clientId,
  trackingId: app.trackingId,
  redirectUris: app.redirectUris,
  status: app.status === authV1.AppStatus.APP_STATUS_SUSPENDED ? 'SUSPENDED' : 'ACTIVE',
  quota: {
    perDay: app.perDay,
    perSecond: app.perSecond,
    heldTicketsPerEvent: app.heldTicketsPerEvent,
  },
  access: accessOf(app.access),
  oauth: oauthOf(app.oauth),
  ...(app.createdAt ? { createdAt: app.createdAt } : {}),
});

const toRateLimitState = (answer: authV1.CheckRateLimitResponse): RateLimitState => ({
  limit: answer.limit,
  available: answer.available,
  resetEpochMs: answer.resetEpochMs,
  over: answer.over,
  retryAfterMs: answer.retryAfterMs,
  granted: answer.granted,
  leaseMs: answer.leaseMs,
});

/** auth-gateway over gRPC, as the edge's DeveloperAccess port. Errors arrive as AppError kinds. */
export function createAuthGatewayClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): DeveloperAccess &
  FanTokens &
  AppAccessAdmin &
  AppOAuthAdmin &
  AppQuotaAdmin & { close(): void } {
  const client = createGrpcClient(authV1.AuthServiceClient, address, options);
  return {
    async createApp(input) {
      return toCredentials(await callUnary(client, 'createApp', createAppRequest(input)));
    },
    async resolveTrackingId(trackingId) {
      const answer = await callUnary(client, 'resolveTrackingId', { trackingId });
      return { valid: answer.valid, appId: answer.appId, access: accessOf(answer.access) };
    },
    async createFan(input) {
      return callUnary(client, 'createFan', input);
    },
    async revokeGrant(fanId, clientId) {
      const answer = await callUnary(client, 'revokeGrant', { fanId, clientId });
      return { revokedTokens: answer.revokedTokens };
    },
    async deleteFan(fanId) {
      await callUnary(client, 'deleteFan', { fanId });
    },
    async validateApiKey(apiKey) {
      const answer = await callUnary(client, 'validateApiKey', { apiKey });
      return {
        valid: answer.valid,
        appId: answer.appId,
        access: accessOf(answer.access),
        heldTicketsPerEvent: answer.heldTicketsPerEvent,
      };
    },
    async introspect(accessToken) {
      const answer = await callUnary(client, 'introspectToken', { accessToken });
      return { active: answer.active, appId: answer.appId, fanId: answer.fanId };
    },
    async setAppAccess(appId, change) {
      const answer = await callUnary(client, 'setAppAccess', {
        appId,
        ...(change.commerceShopping !== undefined
          ? { commerceShopping: change.commerceShopping }
          : {}),
        ...(change.partnerDistribution !== undefined
          ? { partnerDistribution: change.partnerDistribution }
          : {}),
      });
      return accessOf(answer.access);
    },
    async setAppQuota(appId, change) {
      const answer = await callUnary(client, 'setAppQuota', { appId, ...change });
      return {
        perDay: answer.perDay,
        perSecond: answer.perSecond,
        heldTicketsPerEvent: answer.heldTicketsPerEvent,
      };
    },
    async setAppOAuth(appId, change) {
      return oauthOf(
        (await callUnary(client, 'setAppOAuth', { appId, ...oauthChange(change) })).oauth,
      );
    },
    async getAppAccess(appId) {
      return accessOf((await callUnary(client, 'getAppAccess', { appId })).access);
    },
    async getApp(appId) {
      return toAppDetails(await callUnary(client, 'getApp', { appId }));
    },
    async checkRateLimit(appId, options = {}) {
      return toRateLimitState(
        await callUnary(client, 'checkRateLimit', { appId, cost: 1, lease: options.lease ?? 0 }),
      );
    },
    close: () => client.close(),
  };
}
