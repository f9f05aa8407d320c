/**
 * What the OAuth routes share: request parameters, the caller's address, the session cookie, the
 * library's server for one request, and the two kinds of answer (an HTML page, an RFC 6749 error).
 */
import { isIP } from 'node:net';
import OAuth2Server from '@node-oauth/oauth2-server';
import { serviceKeyring } from '@marquee/platform/grpc';
import { clientAddress, type TrustedProxies } from '@marquee/platform/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthFlows } from '../../app/oauth-flows.js';
import { CODE_TTL_S, INTERACTION_TTL_S, REFRESH_TOKEN_TTL_S } from '../../domain/oauth.js';
import { oauthModel, type ModelCall } from './oauth-model.js';
import { pageHeaders } from './pages.js';

export const COOKIE = 'marquee_oauth';
/** The form posts (sign-in, consent, token, revoke) are small: a larger body is refused unread. */
export const FORM_BODY_LIMIT = 16 * 1024;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** What every OAuth route needs: the use cases, the trusted proxies, the library's server. */
export interface OAuthRouteContext {
  flows: OAuthFlows;
  /** The proxies (the edge, the ingress) whose `X-Forwarded-For` entries are believed. */
  trustedProxies: TrustedProxies;
  /** One server per request (it only holds options): the model carries that request's address. */
  serverFor(call: ModelCall): OAuth2Server;
}

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

export function oauthRouteContext(flows: OAuthFlows, trustedProxies: TrustedProxies) {
  return {
    flows,
    trustedProxies,
    serverFor: (call: ModelCall) =>
      new OAuth2Server({ model: oauthModel(flows, call), ...SERVER_OPTIONS }),
  } satisfies OAuthRouteContext;
}

export type Params = Record<string, string | undefined>;

/** Single-valued parameters only: RFC 6749 section 3.1 forbids repeating one. */
export function single(source: unknown): { params: Params; repeated?: string } {
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

export const setSessionCookie = (request: FastifyRequest, reply: FastifyReply, value: string) =>
  reply.setCookie(COOKIE, value, {
    path: '/oauth',
    httpOnly: true,
    secure: cookieSecure(request),
    sameSite: 'strict',
    maxAge: INTERACTION_TTL_S,
  });

export const clearSessionCookie = (request: FastifyRequest, reply: FastifyReply) =>
  reply.clearCookie(COOKIE, {
    path: '/oauth',
    secure: cookieSecure(request),
    sameSite: 'strict',
  });

/** Header and audience of the edge's service token on the requests it proxies (edge oauth-proxy). */
const FORWARDED_BY_HEADER = 'x-marquee-forwarded-by';
const FORWARDED_FOR_AUDIENCE = 'marquee.auth.http';

/**
 * The address the throttles count. A request the edge proxied carries the edge's service token:
 * then the edge's `X-Forwarded-For` entry (the client address it resolved) is the client, whatever
 * the network path. Otherwise the chain is read through the trusted proxies ({@link clientAddress}).
 */
export function clientIp(request: FastifyRequest, trusted: TrustedProxies): string {
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

export function redirectWith(redirectUri: string, params: Params): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url.toString();
}

export function sendPage(
  reply: FastifyReply,
  status: number,
  html: string,
  formTargets: string[] = [],
) {
  return reply.code(status).headers(pageHeaders(formTargets)).send(html);
}

export function sendOAuthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
) {
  return reply
    .code(status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
    .type('application/json')
    .send({ error, error_description: description });
}
