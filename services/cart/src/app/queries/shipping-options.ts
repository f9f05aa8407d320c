import { invalidInput } from '../../domain/errors.js';
import { shippingOptions, type ShippingOption } from '../../domain/shipping.js';
import type { CartCore } from '../core/cart-core.js';
import type { CartOwner } from '../types.js';

/** Shipping options of a cart of the owner for a region (`''` = the event's country). */
export class GetShippingOptions {
  constructor(private readonly core: CartCore) {}

  async handle(
    owner: CartOwner,
    cartId: string,
    region: string,
    eventId?: string,
  ): Promise<ShippingOption[]> {
    if (region && !/^[A-Za-z]{2}$/.test(region))
      throw invalidInput('region must be a two-letter country code', 'region');
    const cart = await this.core.owned(owner, cartId, eventId);
    return shippingOptions({
      region,
      eventCountry: cart.countryCode,
      secureEntry: cart.secureEntryEnabled,
    });
  }
}
