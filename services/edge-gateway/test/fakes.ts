import type { Backends } from '../src/app/backends.js';

/**
 * Backends for unit tests: the given fakes, and for every other port an object whose methods
 * throw, so a test that reaches a backend it did not set up fails loudly instead of hanging.
 */
const OPTIONAL_MEMBERS: ReadonlySet<string | symbol> = new Set(['assertRoom']);

export function fakeBackends(partial: { [K in keyof Backends]?: Partial<Backends[K]> }): Backends {
  const unexpected = (port: string) =>
    new Proxy(
      {},
      {
        get: (_target, method) =>
          OPTIONAL_MEMBERS.has(method)
            ? undefined
            : () => {
                throw new Error(`unexpected call ${port}.${String(method)} in this test`);
              },
      },
    );
  return new Proxy({} as Backends, {
    get: (_target, port: string) => {
      const fake = (partial as Record<string, object | undefined>)[port];
      if (!fake) return unexpected(port);
      return new Proxy(fake, {
        get: (target, method) => {
          const member = (target as Record<string | symbol, unknown>)[method];
          // Optional members of a port (PartnerCart.assertRoom) stay absent unless given.
          if (member !== undefined || OPTIONAL_MEMBERS.has(method)) return member;
          return () => {
            throw new Error(`unexpected call ${port}.${String(method)} in this test`);
          };
        },
      });
    },
  });
}
