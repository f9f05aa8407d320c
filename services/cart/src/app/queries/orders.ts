import { CartError, ErrorCode } from '../../domain/errors.js';
import type { Order } from '../../domain/order.js';
import { withoutVersion } from '@marquee/platform/kernel';
import type { OrderRepository } from '../ports.js';
import type { CartOwner } from '../types.js';

/** An order of the owner app (any order when `appId` is undefined: operators). */
export class GetOrder {
  constructor(private readonly orders: OrderRepository) {}

  async handle(orderId: string, appId?: string): Promise<Order> {
    const order = orderId ? await this.orders.get(orderId) : undefined;
    if (!order || (appId !== undefined && order.appId !== appId))
      throw new CartError('not_found', ErrorCode.INVALID_CART, `order ${orderId} not found`);
    return withoutVersion(order);
  }
}

/** Confirmed (or all) orders of an owner, newest first: e.g. a fan's tickets of an event. */
export class ListOrders {
  constructor(private readonly orders: OrderRepository) {}

  async handle(
    owner: CartOwner,
    filter: { eventId?: string; status?: Order['status']; limit?: number } = {},
  ): Promise<Order[]> {
    return this.orders.listByOwner({
      appId: owner.appId,
      sandbox: owner.sandbox,
      ...(owner.fanId !== undefined ? { fanId: owner.fanId } : {}),
      ...(filter.eventId ? { eventId: filter.eventId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      limit: Math.min(Math.max(filter.limit ?? 100, 1), 500),
    });
  }
}
