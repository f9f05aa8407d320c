import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serviceKeyring, serviceTokenFor } from '@marquee/platform/grpc';
import { clientAddress, TrustedProxies } from '@marquee/platform/http';

/** The header carrying the edge's service token on proxied /oauth requests, and its audience. */
export const FORWARDED_BY_HEADER = 'x-marquee-forwarded-by';
export const FORWARDED_FOR_AUDIENCE = 'marquee.auth.http';

export interface OAuthProxyOptions {
  /** auth-gateway's HTTP base URL (`HTTP_URL_AUTH_GATEWAY`). */
  upstream: string;
  /** The proxies in front of the edge whose `X-Forwarded-For` entries are believed. Default: none. */
  trustedProxies?: TrustedProxies;
  timeoutMs?: number;
}

/**
 * `{base_url}/oauth/*` → auth-gateway (the fans' OAuth API is served on the edge's base URL), with
 * @fastify/reply-from (fastify's own proxy: streaming, undici pool, header hooks). Bodies pass
 * through untouched (the form posts and the token endpoint are auth-gateway's to parse); the Host
 * header is kept so cookies and pages belong to the edge's origin; `X-Forwarded-For` is replaced
 * by the client's address — the peer, or behind trusted proxies (`TRUSTED_PROXIES`: the ingress)
 * the first address from the right that none of them is — so a client cannot pick the address the
 * sign-in throttles count, and clients behind one ingress are not counted as one.
 */
export async function registerOAuthProxy(
  app: FastifyInstance,
  options: OAuthProxyOptions,
): Promise<void> {
  const trusted = options.trustedProxies ?? new TrustedProxies([]);
  await app.register(async (scope) => {
    await scope.register(replyFrom, {
      base: options.upstream,
      // Its request log line names the upstream URL, which for /oauth/info/<token> holds a token;
      // the server's own (masked) request log is enough.
      disableRequestLogging: true,
      undici: {
        headersTimeout: options.timeoutMs ?? 10_000,
        bodyTimeout: options.timeoutMs ?? 10_000,
      },
    });
    // Raw bodies of any type: the edge does not parse what it only forwards.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    // Not in the OpenAPI document: these are auth-gateway's pages and endpoints, documented there.
    scope.all(
      '/oauth/*',
      { schema: { hide: true } },
      (request: FastifyRequest, reply: FastifyReply) =>
        reply.from(request.url, {
          rewriteRequestHeaders: (_req, headers) => ({
            ...headers,
            host: request.headers.host ?? headers.host,
            'x-forwarded-for': clientAddress(
              request.socket.remoteAddress,
              request.headers['x-forwarded-for'],
              trusted,
            ),
            'x-forwarded-proto': request.protocol,
            // Vouches for the X-Forwarded-For above: auth-gateway believes the edge's entry only with
            // a valid service token of edge-gateway (a client's own header of this name is replaced).
            [FORWARDED_BY_HEADER]: serviceTokenFor(
              serviceKeyring(),
              'edge-gateway',
              FORWARDED_FOR_AUDIENCE,
            ),
          }),
          onError: (errorReply, { error }) => {
            request.log.warn({ err: error }, 'auth-gateway unreachable for /oauth');
            return errorReply
              .code(503)
              .header('cache-control', 'no-store')
              .type('application/json')
              .send({
                error: 'temporarily_unavailable',
                error_description: 'The authorization service is unavailable. Try again shortly.',
              });
          },
        }),
    );
  });
}
