import type { FastifyInstance } from 'fastify';

/**
 * The codes of Discovery v2's error bodies, and what each means. Every error object links here
 * (`_links.about.href`: `/discovery/v2/errors.html#<code>`, families/catalog.ts), so the page
 * has one anchor per code.
 */
export const DISCOVERY_ERROR_CODES: ReadonlyArray<{
  code: string;
  status: number;
  meaning: string;
}> = [
  { code: 'DIS1004', status: 404, meaning: 'No resource with this id, or no such path' },
  {
    code: 'DIS1015',
    status: 400,
    meaning:
      'An invalid parameter: a value the schema refuses, a date-time that is not UTC, a `latlong` out of range, `radius` or `unit` without `latlong`, `endDateTime` before `startDateTime`',
  },
  {
    code: 'DIS1035',
    status: 400,
    meaning: 'Paging too deep: `size * page` must be less than 1000',
  },
  {
    code: 'invalid_request',
    status: 400,
    meaning:
      'A request the API cannot read: a URL that does not decode, a path segment over 100 characters (414)',
  },
  {
    code: 'oauth.v2.InvalidApiKey',
    status: 401,
    meaning: 'The `apikey` query parameter is missing or unknown (in the `fault` body)',
  },
  {
    code: 'method_not_allowed',
    status: 405,
    meaning: 'The path has no such method; `Allow` lists the ones it has',
  },
  {
    code: 'policies.ratelimit.QuotaViolation',
    status: 429,
    meaning: "Over the app's quota; retry after the seconds of `Retry-After`",
  },
  { code: 'internal', status: 500, meaning: 'An internal error (a defect); no details are given' },
  {
    code: 'unavailable',
    status: 503,
    meaning: 'A back end is unavailable or at its limit; retry after the seconds of `Retry-After`',
  },
  { code: 'deadline_exceeded', status: 504, meaning: 'A back end did not answer in time' },
];

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/`([^`]*)`/g, '<code>$1</code>');

/** The page: static HTML, no script, no style of its own. */
export const ERROR_CODES_PAGE = [
  '<!doctype html>',
  '<html lang="en"><head><meta charset="utf-8"><title>Discovery v2 error codes</title></head><body>',
  '<h1>Discovery v2 error codes</h1>',
  '<p>Each error object of a Discovery v2 answer carries a <code>code</code>, the HTTP <code>status</code> and a link to its entry here.</p>',
  '<table><thead><tr><th>Code</th><th>Status</th><th>Meaning</th></tr></thead><tbody>',
  ...DISCOVERY_ERROR_CODES.map(
    ({ code, status, meaning }) =>
      `<tr id="${escape(code)}"><td><code>${escape(code)}</code></td><td>${status}</td><td>${escape(meaning)}</td></tr>`,
  ),
  '</tbody></table></body></html>',
  '',
].join('\n');

/**
 * `GET /discovery/v2/errors.html`: the page the error bodies link to, open to anyone (no key: a
 * developer follows the link from a refused call). Left out of the OpenAPI document, which is the
 * API's contract, not its documentation pages.
 */
export function registerErrorCodesPage(scope: FastifyInstance): void {
  scope.get('/errors.html', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('content-security-policy', "default-src 'none'")
      .header('x-content-type-options', 'nosniff')
      .send(ERROR_CODES_PAGE),
  );
}
