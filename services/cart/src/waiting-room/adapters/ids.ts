import { createHmac, randomInt } from 'node:crypto';
import type { WaitingRoomIds } from '../app/ports.js';

/**
 * Queue ticket ids: `q_` and 27 characters of an HMAC-SHA256 of the place (event, app, identity)
 * under the admission key, so a repeated join reads its place by id and no one without the key
 * can name another's. Lottery draws: uniform over [0, 2^48).
 */
export const waitingRoomIds = (key: Buffer): WaitingRoomIds => ({
  queueTicketId: (place: { eventId: string; appId: string; identity: string }) =>
    `q_${createHmac('sha256', key)
      .update(`queue-ticket\n${place.eventId}\n${place.appId}\n${place.identity}`)
      .digest('base64url')
      .slice(0, 27)}`,
  lottery: () => randomInt(0, 2 ** 24) * 2 ** 24 + randomInt(0, 2 ** 24),
});
