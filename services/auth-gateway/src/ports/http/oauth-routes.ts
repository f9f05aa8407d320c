import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthFlows } from '../../app/oauth-flows.js';
import { AuthError } from '../../domain/errors.js';
import type { TrustedProxies } from '@marquee/platform/http';
import { authorizeDecisionRoute, authorizePageRoute } from './authorize-routes.js';
import {
  basicCredentials,
  clientIp,
  FORM_BODY_LIMIT,
  oauthRouteContext,
  sendOAuthError,
  sendPage,
  single,
  type OAuthRouteContext,
} from './oauth-http.js';
import { errorPage } from './pages.js';
import { tokenRoute } from './token-route.js';

export { basicCredentials } from './oauth-http.js';

export interface OAuthRoutesOptions {
  flows: OAuthFlows;
  /** The proxies (the edge, the ingress) whose `X-Forwarded-For` entries are believed. */
  trustedProxies: TrustedProxies;
}

/**
 * `{auth_url}/oauth/*` (the fans' OAuth API): the authorize pages, the token endpoint,
 * user info and revocation. Mapping only: the protocol is @node-oauth/oauth2-server's, the rules
 * are OAuthFlows'.
 */
export function oauthRoutes(options: OAuthRoutesOptions) {
  const context = oauthRouteContext(options.flows, options.trustedProxies);
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(async (scope) => {
      await scope.register(formbody);
      await scope.register(cookie);
      scope.setErrorHandler(answerError);
      authorizePageRoute(scope, context);
      authorizeDecisionRoute(scope, context);
      tokenRoute(scope, context);
      userInfoRoutes(scope, context);
      revokeRoute(scope, context);
    });
  };
}

/** An unreadable request (4xx) or a failure (500): a page under /oauth/authorize, else JSON. */
function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500) request.log.error({ err: error }, 'oauth request failed');
  if (request.url.startsWith('/oauth/authorize')) {
    return sendPage(
      reply,
      status,
      errorPage({
        title: status === 500 ? 'Something went wrong' : 'Bad request',
        message: status === 500 ? 'Please try again later.' : 'The request could not be read.',
      }),
    );
  }
  return sendOAuthError(
    reply,
    // A body over the form limit keeps its 413; other unreadable requests are 400.
    status === 500 ? 500 : status === 413 ? 413 : 400,
    status === 500 ? 'server_error' : 'invalid_request',
    status === 500 ? 'Internal server error' : error.message,
  );
}

/** GET /oauth/info/<access_token>, and /oauth/info without one (a 401). */
function userInfoRoutes(scope: FastifyInstance, { flows }: OAuthRouteContext): void {
  scope.get<{ Params: { token: string } }>('/oauth/info/:token', async (request, reply) => {
    const info = await flows.userInfo(request.params.token);
    if (!info) {
      void reply.header(
        'www-authenticate',
        'Bearer error="invalid_token", error_description="The access token is unknown, expired or revoked"',
      );
      return sendOAuthError(
        reply,
        401,
        'invalid_token',
        'The access token is unknown, expired or revoked',
      );
    }
    return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(info);
  });
  scope.get('/oauth/info', async (_request, reply) =>
    sendOAuthError(
      reply,
      401,
      'invalid_token',
      'The access token is missing: /oauth/info/<access_token>',
    ),
  );
}

/** POST /oauth/revoke (RFC 7009). */
function revokeRoute(scope: FastifyInstance, context: OAuthRouteContext): void {
  const { flows } = context;
  scope.post('/oauth/revoke', { bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const { params } = single(request.body);
    let clientId = params.client_id;
    let clientSecret = params.client_secret;
    const refuseClient = () => {
      void reply.header('www-authenticate', 'Basic realm="marquee", charset="UTF-8"');
      return sendOAuthError(reply, 401, 'invalid_client', 'Client authentication failed');
    };
    if (request.headers.authorization !== undefined) {
      const basic = basicCredentials(request.headers.authorization);
      // A malformed header (not Basic, bad base64, no colon, bad %-encoding) is a failed
      // client authentication, never a 500.
      if (!basic) return refuseClient();
      ({ clientId, clientSecret } = basic);
    }
    let app;
    try {
      app =
        clientId && clientSecret
          ? await flows.authenticateClient(
              clientId,
              clientSecret,
              clientIp(request, context.trustedProxies),
            )
          : undefined;
    } catch (error) {
      if (!(error instanceof AuthError) || error.kind !== 'resource_exhausted') throw error;
      void reply.header('retry-after', String(error.details?.retryAfterSeconds ?? 60));
      return sendOAuthError(
        reply,
        429,
        'invalid_client',
        'Too many failed client authentications from this address; try again later',
      );
    }
    if (!app) return refuseClient();
    if (!params.token)
      return sendOAuthError(reply, 400, 'invalid_request', 'Missing parameter: token');
    await flows.revokeByToken(app, params.token);
    return reply.code(200).headers({ 'cache-control': 'no-store' }).send();
  });
}
