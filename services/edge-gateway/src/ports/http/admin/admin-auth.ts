import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { admin } from '../families/catalog.js';
import { sendFamilyError } from '../families/register-family.js';
import { declareSecurity } from '../security.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` on every admin call, or the previous token while one is
 * rotated out (`ADMIN_TOKEN_PREVIOUS`). Both sides are hashed first so the comparison is
 * constant-time whatever the lengths, and every accepted token is compared.
 */
export function requireAdminToken(
  scope: FastifyInstance,
  adminToken: string,
  previousAdminToken?: string,
): void {
  const accepted = [adminToken, ...(previousAdminToken ? [previousAdminToken] : [])].map(digest);
  declareSecurity(scope, ['adminToken']);
  scope.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const given = match ? digest(match[1]!) : undefined;
    const matches = accepted.map((expected) => !!given && timingSafeEqual(given, expected));
    if (!matches.includes(true)) {
      void reply.header('www-authenticate', 'Bearer realm="marquee-admin"');
      return sendFamilyError(reply, admin, admin.unauthorized);
    }
  });
}
