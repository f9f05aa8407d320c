import type { IncomingEvent } from '@marquee/platform/bus';
import type { FanDeleted } from '@marquee/proto/auth/v1';

/**
 * `fan-deleted` → the contact of the fan's orders erased (`CartApp.eraseFanContact`). A record
 * without a fan id names no one and is skipped; anything that fails throws, so the bus retries the
 * record and then parks it on `fan-deleted.dlq`. Logs the count, never the fan id.
 */
export function fanDeletedHandler(deps: {
  app: { eraseFanContact(fanId: string): Promise<number> };
  log: { info(fields: object, message: string): void };
}) {
  return async (record: IncomingEvent<FanDeleted>): Promise<void> => {
    const fanId = record.value?.fanId || record.key;
    if (!fanId) return;
    const orders = await deps.app.eraseFanContact(fanId);
    if (orders > 0) deps.log.info({ orders }, "a deleted fan's order contacts erased");
  };
}
