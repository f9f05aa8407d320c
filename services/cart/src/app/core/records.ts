import type { Cart } from '../../domain/cart.js';
import type { CartEvent } from '../ports.js';
import type { CartOwner } from '../types.js';

/** Whether the caller may see the cart: its app, prefix, channel, fan and (if named) event. */
export function ownedBy(owner: CartOwner, cart: Cart, eventId?: string): boolean {
  return (
    cart.appId === owner.appId &&
    cart.sandbox === owner.sandbox &&
    (owner.channel === undefined || cart.channel === owner.channel) &&
    (owner.fanId === undefined || cart.fanId === owner.fanId) &&
    (eventId === undefined || eventId === '' || cart.eventId === eventId)
  );
}

/**
 * Whether the cart's tickets are a booking at the partner, which the `booking-*` topics describe:
 * sandbox carts hold at the sandbox inventory, resale carts hold listings (no inventory token).
 */
export const holdsPartnerBooking = (cart: Cart): boolean => !cart.sandbox && !!cart.inventoryToken;

/** A release's event: a partner booking released (not a sandbox or resale cart's). */
export function bookingReleased(before: Cart, after: Cart): CartEvent[] {
  return after.status === 'RELEASED' && before.status !== 'RELEASED' && holdsPartnerBooking(after)
    ? [{ type: 'booking-released', cart: after }]
    : [];
}
