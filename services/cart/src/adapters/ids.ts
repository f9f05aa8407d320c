import { randomBytes, randomUUID } from 'node:crypto';
import type { Ids } from '../app/ports.js';

/** Ids from the CSPRNG: carts and orders are UUIDs, order tokens 32 bytes in base64url. */
export const randomIds: Ids = {
  cartId: () => randomUUID(),
  orderId: () => randomUUID(),
  orderNumberBytes: () => randomBytes(8),
  orderToken: () => randomBytes(32).toString('base64url'),
  trackingId: () => randomUUID(),
};
