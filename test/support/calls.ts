import type { Stack } from './stack.js';

// Answers are read loosely: the unit tests pin their shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

/** A response's body as JSON (`{}` when empty). */
export const readJson = async (response: Response): Promise<Json> => {
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as Json;
};

/** A call of the admin API (`/admin/v1/<path>`) with the stack's admin token. */
export function adminCaller(sut: () => Pick<Stack, 'baseUrl' | 'adminToken'>) {
  return (method: string, path: string, body?: unknown) =>
    fetch(`${sut().baseUrl}/admin/v1/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sut().adminToken}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
}

/**
 * Calls of the partner families with an app's key, 220 ms apart (an app's default quota is 5 calls
 * a second). `path` is below `/partners/v1/`, or absolute when it starts with `/`. `answered()`
 * counts the pause from now, after calls of the same app made elsewhere (an import).
 */
export function pacedPartnerCaller(sut: () => Pick<Stack, 'baseUrl'>, apiKey: () => string) {
  let lastAnswer = 0;
  const call = async (
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const wait = lastAnswer + 220 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      return await fetch(`${sut().baseUrl}${path.startsWith('/') ? '' : '/partners/v1/'}${path}`, {
        method,
        headers: {
          'x-api-key': apiKey(),
          ...(options.body ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
        ...(options.body ? { body: JSON.stringify(options.body) } : {}),
      });
    } finally {
      lastAnswer = Date.now();
    }
  };
  return Object.assign(call, {
    answered: () => {
      lastAnswer = Date.now();
    },
  });
}
