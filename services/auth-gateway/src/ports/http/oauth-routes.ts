import { isIP } from 'node:net';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import OAuth2Server, {
  OAuthError,
  Request as OAuthRequest,
  Response as OAuthResponse,
} from '@node-oauth/oauth2-server';
import { serviceKeyring } from '@marquee/platform/grpc';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthFlows } from '../../app/oauth-flows.js';
import { oauthOf } from '../../domain/app.js';
import { AuthError } from '../../domain/errors.js';
import {
  ACCESS_TOKEN_TTL_S,
  CODE_TTL_S,
  INTERACTION_TTL_S,
  REFRESH_TOKEN_TTL_S,
} from '../../domain/oauth.js';
import { clientAddress, type TrustedProxies } from '@marquee/platform/http';
import { oauthModel, type ModelCall } from './oauth-model.js';
import { consentPage, errorPage, loginPage, pageHeaders } from './pages.js';

const COOKIE = 'marquee_oauth';
/** RFC 7636 section 4.1: 43–128 unreserved characters. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 6749 Appendix A.5: state is VSCHAR (printable ASCII); we keep at most 512 of them. */
const VSCHAR = /^[\x20-\x7e]{1,512}$/;
/** The form posts (sign-in, consent, token, revoke) are small: a larger body is refused unread. */
const FORM_BODY_LIMIT = 16 * 1024;
const SUPPORTED_GRANTS = new Set(['authorization_code', 'refresh_token']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export interface OAuthRoutesOptions {
  flows: OAuthFlows;
  /** The proxies (the edge, the ingress) whose `X-Forwarded-For` entries are believed. */
  trustedProxies: TrustedProxies;
}

type Params = Record<string, string | undefined>;

/** Single-valued parameters only: RFC 6749 section 3.1 forbids repeating one. */
function single(source: unknown): { params: Params; repeated?: string } {
  const params: Params = {};
  for (const [key, value] of Object.entries((source ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(value)) return { params, repeated: key };
    if (typeof value === 'string') params[key] = value;
  }
  return { params };
}

function hostOf(request: FastifyRequest): string {
  return (request.headers.host ?? '').replace(/:\d+$/, '');
}

/** Secure everywhere except plain-http development on a loopback host (browsers drop it there). */
function cookieSecure(request: FastifyRequest): boolean {
  return !(request.protocol === 'http' && LOOPBACK.has(hostOf(request)));
}

/** Header and audience of the edge's service token on the requests it proxies (edge oauth-proxy). */
const FORWARDED_BY_HEADER = 'x-marquee-forwarded-by';
const FORWARDED_FOR_AUDIENCE = 'marquee.auth.http';

/**
 * The address the throttles count. A request the edge proxied carries the edge's service token:
 * then the edge's `X-Forwarded-For` entry (the client address it resolved) is the client, whatever
 * the network path. Otherwise the chain is read through the trusted proxies ({@link clientAddress}).
 */
function clientIp(request: FastifyRequest, trusted: TrustedProxies): string {
  const forwarded = request.headers['x-forwarded-for'];
  const vouched = request.headers[FORWARDED_BY_HEADER];
  if (typeof vouched === 'string' && typeof forwarded === 'string') {
    const verified = serviceKeyring().verify(vouched, FORWARDED_FOR_AUDIENCE);
    const address = forwarded.split(',').at(-1)!.trim();
    if (verified.ok && verified.caller === 'edge-gateway' && isIP(address) !== 0) return address;
  }
  return clientAddress(request.socket.remoteAddress, forwarded, trusted);
}

/**
 * HTTP Basic client credentials (RFC 6749 section 2.3.1):
 * `Basic base64(urlencode(id):urlencode(secret))`. Undefined for anything malformed.
 */
export function basicCredentials(
  header: string,
): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  if (!match || match[1]!.length > 4_096) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon)),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    return undefined;
  }
}

function redirectWith(redirectUri: string, params: Params): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url.toString();
}

function sendPage(reply: FastifyReply, status: number, html: string, formTargets: string[] = []) {
  return reply.code(status).headers(pageHeaders(formTargets)).send(html);
}

function sendOAuthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply
    .code(status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
    .type('application/json')
    .send({ error, error_description: description });
}

/**
 * `{auth_url}/oauth/*` (the fans' OAuth API): the authorize pages, the token endpoint,
 * user info and revocation. Mapping only: the protocol is @node-oauth/oauth2-server's, the rules
 * are OAuthFlows'.
 */
export function oauthRoutes(options: OAuthRoutesOptions) {
  const { flows } = options;
  // One server per request (it only holds options): the model carries that request's address.
  const serverFor = (call: ModelCall) =>
    new OAuth2Server({
      model: oauthModel(flows, call),
      ...SERVER_OPTIONS,
    });
  const SERVER_OPTIONS = {
    accessTokenLifetime: 3600,
    refreshTokenLifetime: REFRESH_TOKEN_TTL_S,
    authorizationCodeLifetime: CODE_TTL_S,
    allowEmptyState: true,
    // The refresh grant always asks the model to retire the token presented and issue a new one;
    // the model does so only for apps that rotate refresh tokens, and otherwise saves and answers
    // no new refresh token (the platform's token contract), so the one presented keeps working.
    alwaysIssueNewRefreshToken: true,
    requireClientAuthentication: { authorization_code: true, refresh_token: true },
  };

  const setSessionCookie = (request: FastifyRequest, reply: FastifyReply, value: string) =>
    reply.setCookie(COOKIE, value, {
      path: '/oauth',
      httpOnly: true,
      secure: cookieSecure(request),
      sameSite: 'strict',
      maxAge: INTERACTION_TTL_S,
    });
  const clearSessionCookie = (request: FastifyRequest, reply: FastifyReply) =>
    reply.clearCookie(COOKIE, {
      path: '/oauth',
      secure: cookieSecure(request),
      sameSite: 'strict',
    });

  return async (app: FastifyInstance): Promise<void> => {
    await app.register(async (scope) => {
      await scope.register(formbody);
      await scope.register(cookie);

      scope.setErrorHandler((error: FastifyError, request, reply) => {
        const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
        if (status === 500) request.log.error({ err: error }, 'oauth request failed');
        if (request.url.startsWith('/oauth/authorize')) {
          return sendPage(
            reply,
            status,
            errorPage({
              title: status === 500 ? 'Something went wrong' : 'Bad request',
              message:
                status === 500 ? 'Please try again later.' : 'The request could not be read.',
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
      });

      // --- GET /oauth/authorize: validate, then the login page ----------------------------------
      scope.get('/oauth/authorize', async (request, reply) => {
        const { params, repeated } = single(request.query);
        const fail = (title: string, message: string) =>
          sendPage(reply, 400, errorPage({ title, message }));
        const app = params.client_id ? await flows.client(params.client_id) : undefined;
        // An unknown client or an unregistered redirect URI never redirects (RFC 6749 section
        // 4.1.2.1): the URI cannot be trusted, and an open redirector is a phishing tool.
        if (!app)
          return fail('Unknown application', 'This application is not registered with Marquee.');
        const redirectUri = params.redirect_uri;
        if (!redirectUri || !app.redirectUris.includes(redirectUri)) {
          return fail(
            'Invalid redirect URI',
            'The redirect URI is missing or is not one this application registered.',
          );
        }
        const state = params.state;
        const back = (error: string, description: string) =>
          reply.redirect(
            redirectWith(redirectUri, {
              error,
              error_description: description,
              ...(state !== undefined && VSCHAR.test(state) ? { state } : {}),
            }),
            302,
          );
        if (repeated)
          return back('invalid_request', `Parameter ${repeated} was sent more than once`);
        if (params.response_type !== 'code') {
          return params.response_type === undefined
            ? back('invalid_request', 'Missing parameter: response_type')
            : back('unsupported_response_type', 'Only response_type=code is supported');
        }
        if (params.scope !== undefined && params.scope !== 'all') {
          return back('invalid_scope', 'The only scope is "all"');
        }
        if (state !== undefined && !VSCHAR.test(state))
          return back('invalid_request', 'Invalid state');
        const challenge = params.code_challenge;
        const method = params.code_challenge_method;
        if (challenge === undefined && method !== undefined) {
          return back('invalid_request', 'code_challenge_method without code_challenge');
        }
        // An app that requires PKCE (an operator's setting) gets no code without a challenge: a
        // stolen or injected code is then useless without the verifier.
        if (challenge === undefined && oauthOf(app).requirePkce) {
          return back(
            'invalid_request',
            'This application requires PKCE: send code_challenge with code_challenge_method=S256',
          );
        }
        if (challenge !== undefined) {
          if (!PKCE_VALUE.test(challenge)) return back('invalid_request', 'Invalid code_challenge');
          // RFC 9700 section 2.1.1: S256 only; "plain" would let an intercepted request reveal the
          // verifier. A challenge without a method means "plain" (RFC 7636 section 4.3): refused
          // too, not guessed.
          if (method !== 'S256') {
            return back('invalid_request', 'code_challenge_method must be S256');
          }
        }
        let session;
        try {
          session = await flows.startInteraction(
            {
              clientId: app.clientId,
              redirectUri,
              scope: 'all',
              ...(state !== undefined ? { state } : {}),
              ...(challenge !== undefined
                ? { codeChallenge: challenge, codeChallengeMethod: 'S256' }
                : {}),
            },
            clientIp(request, options.trustedProxies),
          );
        } catch (error) {
          if (!(error instanceof AuthError) || error.kind !== 'resource_exhausted') throw error;
          void reply.header('retry-after', String(error.details?.retryAfterSeconds ?? 60));
          return sendPage(
            reply,
            429,
            errorPage({ title: 'Too many requests', message: error.message }),
          );
        }
        setSessionCookie(request, reply, session.cookie);
        return sendPage(reply, 200, loginPage({ appName: app.name, csrf: session.csrf }));
      });

      // --- POST /oauth/authorize: sign in, approve or decline -----------------------------------
      scope.post('/oauth/authorize', { bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
        const { params } = single(request.body);
        let interaction;
        try {
          interaction = await flows.resume(request.cookies[COOKIE], params.csrf);
        } catch (error) {
          if (!(error instanceof AuthError)) throw error;
          return sendPage(
            reply,
            403,
            errorPage({ title: 'Session expired', message: error.message }),
          );
        }
        const { appName } = await flows.pageContext(interaction);
        const action = params.action;

        if (action === 'login') {
          try {
            const session = await flows.signIn(interaction, {
              email: params.email ?? '',
              password: params.password ?? '',
              ip: clientIp(request, options.trustedProxies),
            });
            setSessionCookie(request, reply, session.cookie);
            const { email } = await flows.pageContext(session.interaction);
            return sendPage(
              reply,
              200,
              consentPage({ appName, csrf: session.csrf, email: email ?? '' }),
              [new URL(session.interaction.redirectUri).origin],
            );
          } catch (error) {
            if (!(error instanceof AuthError)) throw error;
            if (error.kind === 'permission_denied') {
              // The page used up its attempts: it is void, the flow starts again from the app.
              clearSessionCookie(request, reply);
              return sendPage(
                reply,
                403,
                errorPage({ title: 'Session expired', message: error.message }),
              );
            }
            const throttled = error.kind === 'resource_exhausted';
            if (throttled) {
              void reply.header('retry-after', String(error.details?.retryAfterSeconds ?? 900));
            }
            // Same CSRF token: the interaction did not change.
            return sendPage(
              reply,
              throttled ? 429 : 401,
              loginPage({ appName, csrf: params.csrf!, error: error.message }),
            );
          }
        }

        if (action !== 'approve' && action !== 'decline') {
          return sendPage(
            reply,
            400,
            errorPage({ title: 'Bad request', message: 'Unknown action.' }),
          );
        }
        let fanId: string;
        try {
          fanId = flows.signedIn(interaction);
        } catch (error) {
          if (!(error instanceof AuthError)) throw error;
          return sendPage(
            reply,
            403,
            errorPage({ title: 'Sign in first', message: error.message }),
          );
        }
        if (action === 'approve') await flows.approve(interaction);
        await flows.finish(interaction);
        clearSessionCookie(request, reply);

        // The library builds the code and the redirect (or access_denied for a decline).
        const oauthRequest = new OAuthRequest({
          method: 'POST',
          headers: {},
          query: {},
          body: {
            client_id: interaction.clientId,
            redirect_uri: interaction.redirectUri,
            response_type: 'code',
            scope: interaction.scope,
            ...(interaction.state !== undefined ? { state: interaction.state } : {}),
            ...(interaction.codeChallenge !== undefined
              ? {
                  code_challenge: interaction.codeChallenge,
                  code_challenge_method: interaction.codeChallengeMethod ?? 'S256',
                }
              : {}),
            ...(action === 'decline' ? { allowed: 'false' } : {}),
          },
        });
        const oauthResponse = new OAuthResponse({ headers: {} });
        try {
          await serverFor({ address: clientIp(request, options.trustedProxies) }).authorize(
            oauthRequest,
            oauthResponse,
            {
              authenticateHandler: { handle: () => ({ id: fanId }) },
            },
          );
        } catch (error) {
          if (!oauthResponse.headers?.location) throw error;
        }
        const location = oauthResponse.headers?.location;
        if (!location) throw new Error('authorize produced no redirect');
        return reply.headers({ 'cache-control': 'no-store' }).redirect(location, 302);
      });

      // --- POST /oauth/token ---------------------------------------------------------------------
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
        const call: ModelCall = { address: clientIp(request, options.trustedProxies) };
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
          await serverFor(call).token(oauthRequest, oauthResponse);
        } catch (error) {
          // Usually the library has written the RFC 6749 section 5.2 error into the response
          // already.
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
          grantType === 'authorization_code' &&
          typeof body.error_description === 'string' &&
          body.error_description.includes('`redirect_uri` is invalid')
        ) {
          // RFC 6749 section 5.2: a redirect URI that differs from the authorization request's is
          // invalid_grant (the library says invalid_request); the code is consumed either way.
          body.error = 'invalid_grant';
        }
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

      // --- GET /oauth/info/<access_token> -------------------------------------------------------
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

      // --- POST /oauth/revoke (RFC 7009) ---------------------------------------------------------
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
                  clientIp(request, options.trustedProxies),
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
        if (!app) {
          void reply.header('www-authenticate', 'Basic realm="marquee", charset="UTF-8"');
          return sendOAuthError(reply, 401, 'invalid_client', 'Client authentication failed');
        }
        if (!params.token)
          return sendOAuthError(reply, 400, 'invalid_request', 'Missing parameter: token');
        await flows.revokeByToken(app, params.token);
        return reply.code(200).headers({ 'cache-control': 'no-store' }).send();
      });
    });
  };
}
