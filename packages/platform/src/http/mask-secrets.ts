/**
 * Credentials in URLs, masked before a URL reaches a log line or a span attribute. No imports on
 * purpose: telemetry/register loads this before any instrumented module (fastify, http).
 */

/**
 * Query parameters that carry credentials, one list for logs and server spans
 * (`maskSecretQueryParams`) and outgoing calls' spans (the HTTP instrumentation's
 * `redactedQueryParams`), so the two cannot drift apart: the discovery
 * family's `apikey`, commerce's `api-key` and its presale password `displayId`, OAuth `code` and
 * tokens, the partner cart's `order_token` of the secure-entry order read.
 */
export const SECRET_QUERY_PARAMS: readonly string[] = [
  'apikey',
  'apiKey',
  'api_key',
  'api-key',
  'access_token',
  'refresh_token',
  'token',
  'order_token',
  'orderToken',
  'code',
  'client_secret',
  'password',
  'displayId',
];

// Names compared without regard to case: `?API-KEY=` is as secret as `?api-key=`.
const SECRET_QUERY = new RegExp(`([?&](?:${SECRET_QUERY_PARAMS.join('|')})=)[^&#]*`, 'gi');

// Path segments that are credentials: the fans' OAuth API puts the access token in the path of
// `/oauth/info/<access_token>`.
const SECRET_PATH = /^(\/oauth\/info\/)[^/?#]+/;

export function maskSecretQueryParams(url: string): string {
  return url.replace(SECRET_PATH, '$1[REDACTED]').replace(SECRET_QUERY, '$1[REDACTED]');
}
