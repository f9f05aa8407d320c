import type { IncomingEvent } from '@marquee/platform/bus';
import { OrderConfirmed } from '@marquee/proto/cart/v1';
import { describe, expect, it } from 'vitest';
import type { ReconcilerApp } from '../src/app/reconciler-app.js';
import { orderConfirmedHandler } from '../src/ports/kafka/handlers.js';

const record = (value: OrderConfirmed): IncomingEvent<OrderConfirmed> => ({
  topic: 'order-confirmed',
  key: value.orderId,
  value,
  id: 'ce-1',
  type: 'marquee.cart.v1.OrderConfirmed',
  source: 'cart',
  time: new Date('2030-01-01T00:00:00Z'),
  partition: 0,
  offset: '0',
  attempt: 1,
  headers: {},
});

describe('order-confirmed of resale orders', () => {
  it('records primary orders and skips resale ones (no partner booking to reconcile)', async () => {
    const recorded: string[] = [];
    const app = {
      recordOrderConfirmed: async (fact: { orderId: string }) => {
        recorded.push(fact.orderId);
      },
    } as unknown as ReconcilerApp;
    const handle = orderConfirmedHandler(app);
    await handle(
      record(OrderConfirmed.fromPartial({ orderId: 'o-primary', eventId: 'E1', cartId: 'c1' })),
    );
    await handle(
      record(
        OrderConfirmed.fromPartial({
          orderId: 'o-resale',
          eventId: 'E1',
          cartId: 'c2',
          resoldTicketIds: ['T1', 'T2'],
          resoldFromOrderId: 'o-primary',
        }),
      ),
    );
    expect(recorded).toEqual(['o-primary']);
  });
});
