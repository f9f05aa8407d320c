import type { IncomingEvent } from '@marquee/platform/bus';
import type { FanDeleted } from '@marquee/proto/auth/v1';

/**
 * `fan-deleted` → the fan's carts released and blanked, their resale listings and tickets and the
 * contact of their orders erased (`CartApp.eraseFan`). A record without a fan id names no one and
 * is skipped; anything that fails throws, so the bus retries the record and then parks it on
 * `fan-deleted.dlq` (a replay of the parked record finishes the erasure: every step is
 * idempotent). Logs the counts, never the fan id.
 */
export function fanDeletedHandler(deps: {
  app: {
    eraseFan(fanId: string): Promise<{ carts: number; released: number; orders: number }>;
  };
  log: { info(fields: object, message: string): void };
}) {
  return async (record: IncomingEvent<FanDeleted>): Promise<void> => {
    const fanId = record.value?.fanId || record.key;
    if (!fanId) return;
    const erased = await deps.app.eraseFan(fanId);
    if (erased.carts + erased.orders > 0)
      deps.log.info(erased, "a deleted fan's carts and order contacts erased");
  };
}
