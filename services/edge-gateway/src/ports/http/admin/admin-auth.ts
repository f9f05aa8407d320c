import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { admin } from '../families/catalog.js';
import { sendFamilyError } from '../families/register-family.js';
import { declareSecurity } from '../security.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` on every admin call. Both sides are hashed
 * first so the comparison is constant-time whatever the lengths.
 */
export function requireAdminToken(scope: FastifyInstance, adminToken: string): void {
  const expected = digest(adminToken);
  declareSecurity(scope, ['adminToken']);
  scope.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      void reply.header('www-authenticate', 'Bearer realm="marquee-admin"');
      return sendFamilyError(reply, admin, admin.unauthorized);
    }
  });
}
