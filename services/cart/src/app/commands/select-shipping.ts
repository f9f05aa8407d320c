import { CartError, ErrorCode, staleCart } from '../../domain/errors.js';
import { findShippingOption } from '../../domain/shipping.js';
import type { CartCore } from '../core/cart-core.js';
import type { CartOwner, CartView } from '../types.js';

/** Chooses a shipping option of a held cart (10104 when the cart's event does not offer it). */
export class SelectShipping {
  constructor(private readonly core: CartCore) {}

  async handle(
    owner: CartOwner,
    cartId: string,
    shippingId: string,
    eventId?: string,
  ): Promise<CartView> {
    const cart = await this.core.owned(owner, cartId, eventId);
    this.core.assertOutsideMaintenance(cart);
    const option = findShippingOption(shippingId, cart.secureEntryEnabled);
    if (!option)
      throw new CartError(
        'invalid_argument',
        ErrorCode.INVALID_DELIVERY,
        `unknown shipping option ${shippingId}`,
        { field: 'shipping_id' },
      );
    const now = this.core.now();
    const written = await this.core.mutate(cart.id, (current) => {
      this.core.assertHeld(current, now);
      if (current.status !== 'HELD')
        throw staleCart(`cart ${current.id} is ${current.status}: shipping can no longer change`);
      return { ...current, delivery: option, updatedAt: now };
    });
    return this.core.view(written!);
  }
}
