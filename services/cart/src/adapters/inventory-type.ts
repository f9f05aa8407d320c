import { InventoryType } from '@marquee/proto/cart/v1';
import { isListingId } from '../domain/listing-id.js';

/** `inventory_type` of a cart or order line: RESALE when its ticket type id is a resale listing id. */
export const inventoryTypeOf = (priceTypeId: string): InventoryType =>
  isListingId(priceTypeId)
    ? InventoryType.INVENTORY_TYPE_RESALE
    : InventoryType.INVENTORY_TYPE_PRIMARY;
