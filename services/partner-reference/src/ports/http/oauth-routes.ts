import formbody from '@fastify/formbody';
import type { TokenResponse } from '@marquee/partner-api';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { OAuthError, type ClientCredentials } from '../../app/credentials.js';
import { TokenThrottle } from '../../app/token-throttle.js';

const field = (body: Record<string, unknown>, name: string): string | undefined => {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new OAuthError('invalid_request', `${name} must be given once, as a string`);
  return value;
};

/** RFC 6749 section 2.3.1: HTTP Basic with the form-urlencoded client id and secret. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (match === null) throw new OAuthError('invalid_client', 'malformed Authorization header');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'malformed Basic credentials');
  try {
    const unescape = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'malformed Basic credentials');
  }
}

/** Failed client authentications a client id or an address may have a minute. */
export const DEFAULT_FAILURES_PER_MINUTE = 10;

const sendOAuthError = (reply: FastifyReply, error: OAuthError) => {
  const status = error.error === 'invalid_client' ? 401 : 400;
  if (status === 401) void reply.header('www-authenticate', 'Basic realm="partner-reference"');
  return reply
    .status(status)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send({ error: error.error, error_description: error.message });
};

/**
 * `POST /oauth/token`, OAuth 2.0 client credentials (RFC 6749 section 4.4): form body (or JSON),
 * client authentication by HTTP Basic or `client_id`/`client_secret` in the body (not both).
 * Neither the body nor the Authorization header is ever logged. Failed client authentications
 * are throttled per client id and per address ({@link TokenThrottle}): then 429 with Retry-After.
 */
export async function oauthRoutes(
  scope: FastifyInstance,
  deps: { credentials: ClientCredentials; tokenThrottle?: TokenThrottle },
): Promise<void> {
  const throttle = deps.tokenThrottle ?? new TokenThrottle(DEFAULT_FAILURES_PER_MINUTE);
  await scope.register(formbody, { bodyLimit: 8_192 });

  scope.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500)
      return sendOAuthError(reply, new OAuthError('invalid_request', error.message));
    request.log.error({ err: error }, 'token request failed');
    return reply.status(500).send({ error: 'server_error' });
  });

  scope.post('/oauth/token', async (request, reply) => {
    const body =
      typeof request.body === 'object' && request.body !== null
        ? (request.body as Record<string, unknown>)
        : {};
    const basic = basicCredentials(request.headers.authorization);
    const bodyId = field(body, 'client_id');
    const bodySecret = field(body, 'client_secret');
    if (basic !== undefined && (bodyId !== undefined || bodySecret !== undefined))
      throw new OAuthError('invalid_request', 'use one client authentication method');
    const clientId = basic?.id ?? bodyId;
    const keys = [`ip:${request.ip}`, ...(clientId !== undefined ? [`client:${clientId}`] : [])];
    const wait = throttle.refusal(keys);
    if (wait !== undefined) {
      return reply
        .status(429)
        .header('retry-after', String(Math.max(1, Math.ceil(wait / 1000))))
        .header('cache-control', 'no-store')
        .send({ error: 'too_many_requests', error_description: 'too many failed attempts' });
    }
    let token;
    try {
      token = deps.credentials.issue(
        field(body, 'grant_type'),
        clientId,
        basic?.secret ?? bodySecret,
        field(body, 'scope'),
      );
    } catch (error) {
      if (error instanceof OAuthError && error.error === 'invalid_client') throttle.failed(keys);
      throw error;
    }
    const answer: TokenResponse = {
      access_token: token.token,
      token_type: 'Bearer',
      expires_in: String(token.ttlSeconds),
      scope: token.scopes.join(' '),
    };
    return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer);
  });

  scope.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: '/oauth/token',
    handler: async (_request, reply) =>
      reply
        .status(405)
        .header('allow', 'POST')
        .send({ error: 'invalid_request', error_description: 'use POST' }),
  });
}
