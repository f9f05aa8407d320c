/**
 * POST /oauth/token: the authorization-code and refresh grants, run by the library; its answer is
 * adjusted to the platform's token contract (RFC 6749 section 5.2 errors, lower-case bearer).
 */
import type OAuth2Server from '@node-oauth/oauth2-server';
import {
  OAuthError,
  Request as OAuthRequest,
  Response as OAuthResponse,
} from '@node-oauth/oauth2-server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ACCESS_TOKEN_TTL_S } from '../../domain/oauth.js';
import type { ModelCall } from './oauth-model.js';
import {
  clientIp,
  FORM_BODY_LIMIT,
  sendOAuthError,
  single,
  type OAuthRouteContext,
  type Params,
} from './oauth-http.js';

const SUPPORTED_GRANTS = new Set(['authorization_code', 'refresh_token']);

export function tokenRoute(scope: FastifyInstance, context: OAuthRouteContext): void {
  scope.post('/oauth/token', { bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const { params, repeated } = single(request.body);
    if (repeated) {
      return sendOAuthError(
        reply,
        400,
        'invalid_request',
        `Parameter ${repeated} was sent more than once`,
      );
    }
    const call: ModelCall = { address: clientIp(request, context.trustedProxies) };
    const grantType = params.grant_type;
    if (grantType !== undefined && !SUPPORTED_GRANTS.has(grantType)) {
      // The library knows more grants (password, client_credentials) than the platform offers.
      return sendOAuthError(
        reply,
        400,
        'unsupported_grant_type',
        'grant_type must be authorization_code or refresh_token',
      );
    }
    const answer = await runGrant(() => context.serverFor(call), request, params);
    const { body } = answer;
    let { status } = answer;
    if (call.throttled) {
      // The gate refused before argon2 ran (OAuthFlows.authenticateClient).
      void reply.header('retry-after', String(call.throttled.retryAfterSeconds));
      return sendOAuthError(
        reply,
        429,
        'invalid_client',
        'Too many failed client authentications from this address; try again later',
      );
    }
    if (body.error === 'invalid_client') {
      // 401 however the client authenticated (RFC 6749 section 5.2 requires it for Basic).
      status = 401;
      void reply.header('www-authenticate', 'Basic realm="marquee", charset="UTF-8"');
    }
    if (status >= 500) {
      request.log.error({ error: body.error }, 'token endpoint failed');
      return sendOAuthError(reply, 500, 'server_error', 'Internal server error');
    }
    if (body.access_token) {
      body.token_type = 'bearer'; // this API's token answers spell it in lower case
      body.expires_in = ACCESS_TOKEN_TTL_S; // the stored lifetime, not the seconds left after issuing
      // The refresh answer has refresh_token only for apps that rotate (oauth-model saveToken).
      if (params.grant_type !== 'refresh_token') delete body.scope; // only the refresh answers scope
    }
    return reply
      .code(status)
      .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
      .type('application/json')
      .send(body);
  });
}

/** Runs the grant through the library: the body and status it answered, errors included. */
async function runGrant(
  server: () => OAuth2Server,
  request: FastifyRequest,
  params: Params,
): Promise<{ body: Record<string, unknown>; status: number }> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers[key] = value;
  }
  const oauthRequest = new OAuthRequest({
    method: request.method,
    headers,
    query: {},
    body: params,
  });
  const oauthResponse = new OAuthResponse({ headers: {} });
  let thrown: unknown;
  try {
    await server().token(oauthRequest, oauthResponse);
  } catch (error) {
    // Usually the library has written the RFC 6749 section 5.2 error into the response already.
    thrown = error;
  }
  const body = { ...((oauthResponse.body ?? {}) as Record<string, unknown>) };
  let status = oauthResponse.status ?? 500;
  if (thrown && body.error === undefined) {
    // Checks the library makes before its own error handling (method, content type).
    const oauthError = thrown as { name?: string; code?: number; message?: string };
    const known = thrown instanceof OAuthError && (oauthError.code ?? 500) < 500;
    body.error = known ? oauthError.name : 'server_error';
    body.error_description = known ? oauthError.message : 'Internal server error';
    status = known ? oauthError.code! : 500;
  }
  if (
    body.error === 'invalid_request' &&
    params.grant_type === 'authorization_code' &&
    typeof body.error_description === 'string' &&
    body.error_description.includes('`redirect_uri` is invalid')
  ) {
    // RFC 6749 section 5.2: a redirect URI that differs from the authorization request's is
    // invalid_grant (the library says invalid_request); the code is consumed either way.
    body.error = 'invalid_grant';
  }
  return { body, status };
}
