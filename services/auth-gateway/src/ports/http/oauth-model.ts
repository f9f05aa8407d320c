import type {
  AuthorizationCode,
  AuthorizationCodeModel,
  Client,
  RefreshToken,
  RefreshTokenModel,
  Token,
  User,
} from '@node-oauth/oauth2-server';
import type { OAuthFlows } from '../../app/oauth-flows.js';
import type { DeveloperApp } from '../../domain/app.js';
import { AuthError } from '../../domain/errors.js';
import { SCOPE_ALL, type IssuedToken } from '../../domain/oauth.js';

/** The app travels with the library's client object, so no second lookup is needed. */
type Model = AuthorizationCodeModel & RefreshTokenModel;

interface OAuthClient extends Client {
  app: DeveloperApp;
}

/**
 * What travels as the library's `user`: the fan, the code family the tokens descend from, and in a
 * refresh the refresh token presented (the library hands it from getRefreshToken to revokeToken
 * and saveToken).
 */
interface FanRef extends User {
  id: string;
  codeId?: string;
  refresh?: { token: IssuedToken; rotate: boolean };
}

function toClient(app: DeveloperApp): OAuthClient {
  return {
    id: app.clientId,
    redirectUris: app.redirectUris,
    grants: ['authorization_code', 'refresh_token'],
    accessTokenLifetime: 3600,
    app,
  };
}

/** One request's view: who is calling, and whether the client-authentication gate refused it. */
export interface ModelCall {
  /** The caller's address, which failed client authentications are counted under. */
  address: string;
  /** Set when the gate refused before argon2 ran: the route answers 429, not 401. */
  throttled?: { retryAfterSeconds: number };
}

/**
 * The storage model @node-oauth/oauth2-server asks for, mapped onto the use cases. The library owns
 * the protocol (request validation, client authentication from body or Basic, grant dispatch, PKCE,
 * RFC 6749 section 5.2 errors); every rule about our data lives in OAuthFlows.
 */
export function oauthModel(flows: OAuthFlows, call: ModelCall): Model {
  return {
    async getClient(clientId: string, clientSecret: string | null) {
      // The authorize step passes null: a lookup. The token endpoint passes what the client sent,
      // and our apps are all confidential clients: no secret (the library lets a PKCE exchange
      // through without one, for public clients) fails authentication.
      if (clientSecret === null) {
        const app = await flows.client(clientId);
        return app ? toClient(app) : false;
      }
      try {
        const app = await flows.authenticateClient(clientId, clientSecret ?? '', call.address);
        return app ? toClient(app) : false;
      } catch (error) {
        if (!(error instanceof AuthError) || error.kind !== 'resource_exhausted') throw error;
        call.throttled = { retryAfterSeconds: Number(error.details?.retryAfterSeconds ?? 60) };
        return false;
      }
    },

    // ≥128 bits (RFC 6749 section 10.10): 256 random bits each, base64url.
    generateAuthorizationCode: async () => flows.newCredential(),
    generateAccessToken: async () => flows.newCredential(),
    generateRefreshToken: async () => flows.newCredential(),

    async validateScope(_user: User, _client: Client, scope?: string[]) {
      // The platform has one scope, `all`; an absent scope means it (RFC 6749 section 3.3).
      if (scope === undefined || scope.length === 0) return [SCOPE_ALL];
      return scope.length === 1 && scope[0] === SCOPE_ALL ? [SCOPE_ALL] : false;
    },

    ...codeModel(flows),
    ...tokenModel(flows),
  };
}

/** The authorization codes: saved at the authorize step, read and consumed by the exchange. */
function codeModel(
  flows: OAuthFlows,
): Pick<Model, 'saveAuthorizationCode' | 'getAuthorizationCode' | 'revokeAuthorizationCode'> {
  return {
    async saveAuthorizationCode(code, client, user) {
      const { app } = client as OAuthClient;
      const saved = await flows.saveCode(code.authorizationCode, {
        app,
        fanId: (user as FanRef).id,
        redirectUri: code.redirectUri,
        scope: (code.scope ?? [SCOPE_ALL]).join(' '),
        ...(code.codeChallenge ? { codeChallenge: code.codeChallenge } : {}),
        ...(code.codeChallengeMethod ? { codeChallengeMethod: code.codeChallengeMethod } : {}),
      });
      return {
        authorizationCode: code.authorizationCode,
        expiresAt: saved.expiresAt,
        redirectUri: saved.redirectUri,
        scope: [saved.scope],
        client,
        user,
      } satisfies AuthorizationCode;
    },

    async getAuthorizationCode(authorizationCode: string) {
      const code = await flows.codeForExchange(authorizationCode);
      if (!code) return false;
      return {
        authorizationCode,
        expiresAt: code.expiresAt,
        redirectUri: code.redirectUri,
        scope: [code.scope],
        client: { id: code.clientId, grants: [] },
        user: { id: code.fanId, codeId: code.id } satisfies FanRef,
        ...(code.codeChallenge
          ? {
              codeChallenge: code.codeChallenge,
              codeChallengeMethod: code.codeChallengeMethod ?? 'S256',
            }
          : {}),
      } satisfies AuthorizationCode;
    },

    async revokeAuthorizationCode(code: AuthorizationCode) {
      return flows.consumeCode((code.user as FanRef).codeId!);
    },
  };
}

/** The tokens: saved at an exchange or refresh, read by the refresh grant and by introspection. */
function tokenModel(
  flows: OAuthFlows,
): Pick<Model, 'saveToken' | 'getRefreshToken' | 'revokeToken' | 'getAccessToken'> {
  return {
    async saveToken(token: Token, client: Client, user: User) {
      const fan = user as FanRef;
      // A refresh for an app that does not rotate answers no refresh token (the platform's token
      // contract): the one presented keeps working. One that rotates answers the new one, which
      // keeps the expiry of the one it replaces.
      const { refreshToken: issued, ...rest } = token;
      const refreshToken = fan.refresh && !fan.refresh.rotate ? undefined : issued;
      const expiries = await flows.saveTokens({
        accessToken: token.accessToken,
        ...(refreshToken ? { refreshToken } : {}),
        ...(fan.refresh ? { refreshTokenExpiresAt: fan.refresh.token.expiresAt } : {}),
        app: (client as OAuthClient).app,
        fanId: fan.id,
        codeId: fan.codeId!,
        scope: (token.scope ?? [SCOPE_ALL]).join(' '),
      });
      return {
        ...rest,
        ...(refreshToken ? { refreshToken } : {}),
        accessTokenExpiresAt: expiries.accessTokenExpiresAt,
        ...(expiries.refreshTokenExpiresAt
          ? { refreshTokenExpiresAt: expiries.refreshTokenExpiresAt }
          : {}),
        client,
        user,
      };
    },

    async getRefreshToken(refreshToken: string) {
      // A retired refresh token presented again is a replay: refused, its family revoked (flows).
      const found = await flows.refreshTokenForGrant(refreshToken);
      if (!found) return false;
      const { token } = found;
      return {
        refreshToken,
        refreshTokenExpiresAt: token.expiresAt,
        scope: [token.scope],
        client: { id: token.clientId, grants: [] },
        user: { id: token.fanId, codeId: token.codeId, refresh: found } satisfies FanRef,
      } satisfies RefreshToken;
    },

    // Called by the refresh grant before it issues the new tokens (false → invalid_grant). An app
    // that rotates retires the token presented, by compare-and-set: of two refreshes with one token
    // one wins, the other is a replay. Otherwise the token stays valid (nothing to do).
    async revokeToken(token: RefreshToken | Token) {
      const refresh = (token.user as FanRef).refresh;
      if (!refresh?.rotate) return true;
      return flows.rotateRefreshToken(refresh.token);
    },

    async getAccessToken(accessToken: string) {
      const token = await flows.liveToken(accessToken, 'access');
      if (!token) return false;
      return {
        accessToken,
        accessTokenExpiresAt: token.expiresAt,
        scope: [token.scope],
        client: { id: token.clientId, grants: [] },
        user: { id: token.fanId },
      };
    },
  };
}
