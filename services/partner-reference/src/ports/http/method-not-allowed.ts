import type { FastifyInstance, FastifyReply } from 'fastify';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Answers 405 (with `Allow`) for the methods a path does not serve, instead of fastify's 404.
 * Call after the scope's routes are declared, with each path and the methods it serves.
 */
export function methodNotAllowed(
  app: FastifyInstance,
  served: ReadonlyMap<string, readonly string[]>,
  answer: (reply: FastifyReply) => FastifyReply,
): void {
  for (const [url, methods] of served) {
    const others = METHODS.filter((method) => !methods.includes(method));
    if (others.length === 0) continue;
    const allow = methods.includes('GET') ? [...methods, 'HEAD'] : [...methods];
    app.route({
      method: others,
      url,
      handler: async (_request, reply) => answer(reply.header('allow', allow.join(', '))),
    });
  }
}
