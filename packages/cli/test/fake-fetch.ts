/**
 * The CLI's API client (`@marquee/api-client`, openapi-fetch) calls fetch with one `Request`. The
 * tests' fakes look at the URL, method, headers and JSON text of the body: this hands them those.
 */
export interface SeenRequest {
  method: string;
  /** Every header, names in lower case. */
  headers: Record<string, string>;
  /** The body's text; `undefined` when the request has none. */
  body?: string;
}

export function viaRequest(
  handler: (url: URL, init: SeenRequest) => Response | Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const text = await request.text();
    return handler(new URL(request.url), {
      method: request.method,
      headers: Object.fromEntries(request.headers),
      ...(text === '' ? {} : { body: text }),
    });
  };
}
