/**
 * `/oauth/authorize`: the GET validates the app's request and shows the sign-in page; the POST
 * signs the fan in (then shows the consent page) or takes the approval or decline, and redirects
 * back to the app with a code or an error.
 */
import { Request as OAuthRequest, Response as OAuthResponse } from '@node-oauth/oauth2-server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { oauthOf, type DeveloperApp } from '../../domain/app.js';
import { AuthError } from '../../domain/errors.js';
import type { Interaction } from '../../domain/oauth.js';
import {
  clearSessionCookie,
  clientIp,
  COOKIE,
  FORM_BODY_LIMIT,
  redirectWith,
  sendPage,
  setSessionCookie,
  single,
  type OAuthRouteContext,
  type Params,
} from './oauth-http.js';
import { consentPage, errorPage, loginPage } from './pages.js';

/** RFC 7636 section 4.1: 43–128 unreserved characters. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 6749 Appendix A.5: state is VSCHAR (printable ASCII); we keep at most 512 of them. */
const VSCHAR = /^[\x20-\x7e]{1,512}$/;

/** GET /oauth/authorize: validate, then the login page. */
export function authorizePageRoute(scope: FastifyInstance, context: OAuthRouteContext): void {
  scope.get('/oauth/authorize', async (request, reply) => {
    const { params, repeated } = single(request.query);
    const fail = (title: string, message: string) =>
      sendPage(reply, 400, errorPage({ title, message }));
    const app = params.client_id ? await context.flows.client(params.client_id) : undefined;
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
    const refused = authorizeRefusal(params, repeated, app);
    if (refused !== undefined) {
      const [error, description] = refused;
      return reply.redirect(
        redirectWith(redirectUri, {
          error,
          error_description: description,
          ...(state !== undefined && VSCHAR.test(state) ? { state } : {}),
        }),
        302,
      );
    }
    return startSignIn(context, request, reply, app, {
      redirectUri,
      state,
      challenge: params.code_challenge,
    });
  });
}

/**
 * Why an authorization request of a known app and registered redirect URI is refused (the error
 * and its description, sent back to the app), or undefined.
 */
function authorizeRefusal(
  params: Params,
  repeated: string | undefined,
  app: DeveloperApp,
): [error: string, description: string] | undefined {
  if (repeated) return ['invalid_request', `Parameter ${repeated} was sent more than once`];
  if (params.response_type !== 'code') {
    return params.response_type === undefined
      ? ['invalid_request', 'Missing parameter: response_type']
      : ['unsupported_response_type', 'Only response_type=code is supported'];
  }
  if (params.scope !== undefined && params.scope !== 'all') {
    return ['invalid_scope', 'The only scope is "all"'];
  }
  const state = params.state;
  if (state !== undefined && !VSCHAR.test(state)) return ['invalid_request', 'Invalid state'];
  const challenge = params.code_challenge;
  const method = params.code_challenge_method;
  if (challenge === undefined && method !== undefined) {
    return ['invalid_request', 'code_challenge_method without code_challenge'];
  }
  // An app that requires PKCE (an operator's setting) gets no code without a challenge: a
  // stolen or injected code is then useless without the verifier.
  if (challenge === undefined && oauthOf(app).requirePkce) {
    return [
      'invalid_request',
      'This application requires PKCE: send code_challenge with code_challenge_method=S256',
    ];
  }
  if (challenge !== undefined) {
    if (!PKCE_VALUE.test(challenge)) return ['invalid_request', 'Invalid code_challenge'];
    // RFC 9700 section 2.1.1: S256 only; "plain" would let an intercepted request reveal the
    // verifier. A challenge without a method means "plain" (RFC 7636 section 4.3): refused
    // too, not guessed.
    if (method !== 'S256') return ['invalid_request', 'code_challenge_method must be S256'];
  }
  return undefined;
}

/** Starts the interaction of a valid request (429 when the address is throttled): the login page. */
async function startSignIn(
  context: OAuthRouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
  app: DeveloperApp,
  asked: { redirectUri: string; state: string | undefined; challenge: string | undefined },
) {
  const { redirectUri, state, challenge } = asked;
  let session;
  try {
    session = await context.flows.startInteraction(
      {
        clientId: app.clientId,
        redirectUri,
        scope: 'all',
        ...(state !== undefined ? { state } : {}),
        ...(challenge !== undefined
          ? { codeChallenge: challenge, codeChallengeMethod: 'S256' }
          : {}),
      },
      clientIp(request, context.trustedProxies),
    );
  } catch (error) {
    if (!(error instanceof AuthError) || error.kind !== 'resource_exhausted') throw error;
    void reply.header('retry-after', String(error.details?.retryAfterSeconds ?? 60));
    return sendPage(reply, 429, errorPage({ title: 'Too many requests', message: error.message }));
  }
  setSessionCookie(request, reply, session.cookie);
  return sendPage(reply, 200, loginPage({ appName: app.name, csrf: session.csrf }));
}

/** POST /oauth/authorize: sign in, approve or decline. */
export function authorizeDecisionRoute(scope: FastifyInstance, context: OAuthRouteContext): void {
  const { flows } = context;
  scope.post('/oauth/authorize', { bodyLimit: FORM_BODY_LIMIT }, async (request, reply) => {
    const { params } = single(request.body);
    let interaction;
    try {
      interaction = await flows.resume(request.cookies[COOKIE], params.csrf);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      return sendPage(reply, 403, errorPage({ title: 'Session expired', message: error.message }));
    }
    const { appName } = await flows.pageContext(interaction);
    const action = params.action;

    if (action === 'login') return signIn(context, request, reply, interaction, appName, params);

    if (action !== 'approve' && action !== 'decline') {
      return sendPage(reply, 400, errorPage({ title: 'Bad request', message: 'Unknown action.' }));
    }
    let fanId: string;
    try {
      fanId = flows.signedIn(interaction);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      return sendPage(reply, 403, errorPage({ title: 'Sign in first', message: error.message }));
    }
    if (action === 'approve') await flows.approve(interaction);
    await flows.finish(interaction);
    clearSessionCookie(request, reply);
    const location = await codeRedirect(context, request, interaction, fanId, action);
    return reply.headers({ 'cache-control': 'no-store' }).redirect(location, 302);
  });
}

/** The sign-in form: the consent page, or the login page again with what went wrong. */
async function signIn(
  context: OAuthRouteContext,
  request: FastifyRequest,
  reply: FastifyReply,
  interaction: Interaction,
  appName: string,
  params: Params,
) {
  const { flows } = context;
  try {
    const session = await flows.signIn(interaction, {
      email: params.email ?? '',
      password: params.password ?? '',
      ip: clientIp(request, context.trustedProxies),
    });
    setSessionCookie(request, reply, session.cookie);
    const { email } = await flows.pageContext(session.interaction);
    return sendPage(reply, 200, consentPage({ appName, csrf: session.csrf, email: email ?? '' }), [
      new URL(session.interaction.redirectUri).origin,
    ]);
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    if (error.kind === 'permission_denied') {
      // The page used up its attempts: it is void, the flow starts again from the app.
      clearSessionCookie(request, reply);
      return sendPage(reply, 403, errorPage({ title: 'Session expired', message: error.message }));
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

/** The library builds the code and the redirect (or access_denied for a decline): its location. */
async function codeRedirect(
  context: OAuthRouteContext,
  request: FastifyRequest,
  interaction: Interaction,
  fanId: string,
  action: 'approve' | 'decline',
): Promise<string> {
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
    await context
      .serverFor({ address: clientIp(request, context.trustedProxies) })
      .authorize(oauthRequest, oauthResponse, {
        authenticateHandler: { handle: () => ({ id: fanId }) },
      });
  } catch (error) {
    if (!oauthResponse.headers?.location) throw error;
  }
  const location = oauthResponse.headers?.location;
  if (!location) throw new Error('authorize produced no redirect');
  return location;
}
