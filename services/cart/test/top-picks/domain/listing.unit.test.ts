import { describe, expect, it } from 'vitest';
import {
  effectiveState,
  hold,
  isListingId,
  keepForSale,
  release,
  sell,
  withdraw,
  type ResaleListing,
} from '../../../src/top-picks/domain/listing.js';

const now = new Date('2030-05-01T10:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const eur = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });
const listed: ResaleListing = {
  id: 'EV0000000000001.AAAAAAAAAAAAAAAAAAAAAA',
  eventId: 'EV0000000000001',
  orderId: 'o-1',
  ticketIds: ['t1', 't2'],
  price: eur(3000),
  faceValue: eur(8000),
  areaId: 'A1',
  section: 'S',
  row: 'A',
  seats: ['1', '2'],
  generalAdmission: false,
  priceLevelId: 'PL',
  priceTypeId: 'PT',
  sellerAppId: 'seller',
  sellerNotes: '',
  state: 'LISTED',
  createdAt: now,
  updatedAt: now,
};
const holdBy = (cartId: string, l = listed, at = now) =>
  hold(l, { cartId, until: later(600_000), price: eur(2500), quantity: 2, now: at });

describe('resale listing states', () => {
  it('recognises listing ids', () => {
    expect(isListingId(listed.id)).toBe(true);
    expect(isListingId('000123')).toBe(false);
    expect(isListingId('EV1.short')).toBe(false);
  });

  it('is held by one cart at a time, at the given price, whole', () => {
    const held = holdBy('c1');
    expect(held).toMatchObject({ state: 'HELD', holdCartId: 'c1', holdPrice: eur(2500) });
    expect(() => holdBy('c2', held)).toThrow(
      expect.objectContaining({ kind: 'resource_exhausted' }),
    );
    // The same cart again (a retried reserve) is fine.
    expect(holdBy('c1', held).holdCartId).toBe('c1');
    expect(() =>
      hold(listed, { cartId: 'c1', until: later(1), price: eur(1), quantity: 1, now }),
    ).toThrow(expect.objectContaining({ kind: 'invalid_argument' }));
  });

  it('is on sale again when the hold ends', () => {
    const held = holdBy('c1');
    expect(effectiveState(held, later(600_000))).toBe('LISTED');
    expect(holdBy('c2', held, later(600_000)).holdCartId).toBe('c2');
  });

  it('is released only by its cart, idempotently', () => {
    const held = holdBy('c1');
    expect(release(held, 'c2', now)).toBeUndefined();
    const back = release(held, 'c1', now)!;
    expect(back.state).toBe('LISTED');
    expect(back.holdCartId).toBeUndefined();
    expect(release(back, 'c1', now)).toBeUndefined();
  });

  it('is sold once, to the order of the cart that holds it', () => {
    const held = holdBy('c1');
    expect(() => sell(listed, { cartId: 'c1', orderId: 'o-2', now })).toThrow();
    expect(() => sell(held, { cartId: 'c2', orderId: 'o-2', now })).toThrow(
      expect.objectContaining({ kind: 'failed_precondition' }),
    );
    const sold = sell(held, { cartId: 'c1', orderId: 'o-2', now })!;
    expect(sold).toMatchObject({ state: 'SOLD', soldOrderId: 'o-2' });
    expect(sell(sold, { cartId: 'c1', orderId: 'o-2', now })).toBeUndefined();
    expect(() => sell(sold, { cartId: 'c1', orderId: 'o-3', now })).toThrow();
    expect(() => holdBy('c3', sold)).toThrow(
      expect.objectContaining({ kind: 'resource_exhausted' }),
    );
  });

  it('keeps an ended hold for the sale unless someone else took it', () => {
    const held = holdBy('c1');
    const kept = keepForSale(held, { cartId: 'c1', orderId: 'o', until: later(10_000_000), now })!;
    expect(kept.holdExpiresAt).toEqual(later(10_000_000));
    const taken = holdBy('c2', held, later(600_000));
    expect(() => keepForSale(taken, { cartId: 'c1', orderId: 'o', until: later(1), now })).toThrow(
      expect.objectContaining({ kind: 'resource_exhausted' }),
    );
  });

  it('is withdrawn only while on sale', () => {
    const gone = withdraw(listed, now)!;
    expect(gone.state).toBe('WITHDRAWN');
    expect(withdraw(gone, now)).toBeUndefined();
    expect(() => withdraw(holdBy('c1'), now)).toThrow(
      expect.objectContaining({ kind: 'failed_precondition' }),
    );
    expect(() => holdBy('c1', gone)).toThrow(
      expect.objectContaining({ kind: 'resource_exhausted' }),
    );
  });
});
