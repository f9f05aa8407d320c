import type { CartCore } from '../core/cart-core.js';
import type { CartOwner, CartView } from '../types.js';

/** A cart of the owner (the poll of a pending reserve too). NOT_FOUND for anyone else's. */
export class GetCart {
  constructor(private readonly core: CartCore) {}

  async handle(owner: CartOwner, cartId: string, eventId?: string): Promise<CartView> {
    return this.core.view(await this.core.owned(owner, cartId, eventId));
  }
}
