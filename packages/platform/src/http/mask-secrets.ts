/**
 * Credentials in URLs, masked before a URL reaches a log line or a span attribute. No imports on
 * purpose: telemetry/register loads this before any instrumented module (fastify, http).
 */
// Query parameters that carry credentials (the discovery family's `apikey`, OAuth `code`, the
// partner cart's `order_token` of the secure-entry order read): masked in the request line that
// fastify logs for every request.
const SECRET_QUERY =
  /([?&](?:apikey|api_key|apiKey|access_token|refresh_token|token|order_token|code|client_secret|password)=)[^&#]*/g;

// Path segments that are credentials: the fans' OAuth API puts the access token in the path of
// `/oauth/info/<access_token>`.
const SECRET_PATH = /^(\/oauth\/info\/)[^/?#]+/;

export function maskSecretQueryParams(url: string): string {
  return url.replace(SECRET_PATH, '$1[REDACTED]').replace(SECRET_QUERY, '$1[REDACTED]');
}
