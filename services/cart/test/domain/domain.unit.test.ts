import { describe, expect, it } from 'vitest';
import {
  canTransition,
  expire,
  fail,
  hold,
  pay,
  release,
  type Cart,
} from '../../src/domain/cart.js';
import {
  inMaintenance,
  localMinutes,
  parseMaintenanceWindow,
} from '../../src/domain/maintenance.js';
import { orderNumberFrom } from '../../src/domain/order.js';
import {
  applyBps,
  DEFAULT_FEES,
  orderFees,
  priceCart,
  ticketPrice,
} from '../../src/domain/pricing.js';
import { chooseSeats } from '../../src/domain/reserve.js';
import {
  deliveryMethodType,
  findShippingOption,
  regionOf,
  shippingOptions,
} from '../../src/domain/shipping.js';
import { pendingCart } from '../support/carts.js';

const now = new Date('2030-06-01T12:00:00Z');

function aCart(overrides: Partial<Cart> = {}): Cart {
  return pendingCart({ id: 'c1', appId: 'app', eventId: 'E', partnerId: 'p' }, now, overrides);
}

const ticket = (seat: string, face = 5000) => ({
  ticketId: `t${seat}`,
  areaId: 'A1',
  section: 'S1',
  row: '1',
  seat,
  priceLevelId: 'PL1',
  priceTypeId: '000001',
  faceValueMinor: face,
  generalAdmission: false,
  areaDescription: 'Stalls',
});

describe('cart state machine', () => {
  it('allows only the documented transitions', () => {
    expect(canTransition('PENDING', 'HELD')).toBe(true);
    expect(canTransition('HELD', 'PAID')).toBe(true);
    expect(canTransition('PAID', 'COMMITTED')).toBe(true);
    expect(canTransition('HELD', 'COMMITTED')).toBe(false);
    expect(canTransition('COMMITTED', 'RELEASED')).toBe(false);
    expect(canTransition('EXPIRED', 'HELD')).toBe(false);
    expect(() => pay(aCart(), {} as never, {} as never, now)).toThrow(/cannot become PAID/);
  });

  it('owes a partner release after release or expiry of a held cart, and a void of its payment', () => {
    const held = hold(
      aCart(),
      { inventoryToken: 'tok', tickets: [ticket('1')], expiresAt: now, fees: DEFAULT_FEES },
      now,
    );
    expect(held).toMatchObject({ status: 'HELD', inventoryToken: 'tok', releaseOwed: false });
    const paid = pay(
      held,
      {
        paymentId: 'p1',
        type: 'CC',
        amountMinor: 1,
        issuer: 'VISA',
        maskedNumber: 'x',
        expireMonth: 1,
        expireYear: 2031,
        status: 'AUTHORIZED',
        authorizedAt: now,
      },
      {
        firstName: '',
        lastName: '',
        email: 'a@b.c',
        thirdPartyAccountId: '',
        reference: '',
        countryCode: '',
      },
      now,
    );
    expect(release(paid, 'client', now)).toMatchObject({
      status: 'RELEASED',
      releaseOwed: true,
      voidOwed: true,
    });
    expect(expire(held, now)).toMatchObject({
      status: 'EXPIRED',
      releaseOwed: true,
      voidOwed: false,
    });
    const released = release(held, 'client', now);
    expect(release(released, 'client', now)).toBe(released);
  });

  it('releasing a pending cart owes a release of a booking it may not know', () => {
    expect(release(aCart(), 'client', now)).toMatchObject({
      status: 'RELEASED',
      releaseOwed: true,
      bookingUnknown: true,
    });
    expect(fail(aCart(), { code: '20052', message: 'sold out' }, now)).toMatchObject({
      status: 'FAILED',
      releaseOwed: false,
    });
    expect(
      fail(aCart(), { code: '20001', message: 'down' }, now, { bookingUnknown: true }),
    ).toMatchObject({ releaseOwed: true, bookingUnknown: true });
  });
});

describe('pricing', () => {
  it('rounds basis points half up in integers', () => {
    expect(applyBps(5000, 1000)).toBe(500);
    expect(applyBps(1005, 1000)).toBe(101);
    expect(applyBps(1004, 1000)).toBe(100);
  });

  it('prices lines, the service fee with tax per ticket, the processing fee once, delivery, unpaid', () => {
    const priced = priceCart({
      tickets: [ticket('2'), ticket('1'), { ...ticket('3', 1000), priceTypeId: '000002' }],
      fees: DEFAULT_FEES,
      delivery: findShippingOption('GB-ROYALMAIL', false),
      paidMinor: 0,
    });
    expect(priced.lines).toHaveLength(1);
    expect(priced.lines[0]).toMatchObject({ seats: ['1', '2', '3'], quantity: 3 });
    // face 5000+5000+1000; fee 500+500+150 (minimum); tax 20 % of fees
    expect(priced.lines[0]!.totals).toEqual({
      merchandise: 11_000,
      fee: 1_150,
      tax: 230,
      grand: 12_380,
    });
    expect(priced.processing).toMatchObject({
      priceMinor: 250,
      taxMinor: 50,
      feeType: 'per order',
    });
    expect(priced.totals).toEqual({
      merchandise: 11_000,
      fee: 1_400,
      tax: 280,
      delivery: 295,
      upsell: 0,
      grand: 12_975,
      unpaid: 12_975,
    });
    expect(
      priceCart({ tickets: [ticket('1')], fees: DEFAULT_FEES, paidMinor: 6_210 }).totals.unpaid,
    ).toBe(0);
  });
});

describe('maintenance window', () => {
  const window = parseMaintenanceWindow('02:00-04:00');

  it('parses HH:MM-HH:MM and off, and refuses anything else', () => {
    expect(window).toEqual({ start: 120, end: 240 });
    expect(parseMaintenanceWindow('off')).toBeUndefined();
    expect(() => parseMaintenanceWindow('2-4')).toThrow();
    expect(() => parseMaintenanceWindow('02:00-02:00')).toThrow();
  });

  it('applies in the local time of the event', () => {
    const at = new Date('2030-01-15T07:30:00Z');
    expect(inMaintenance(window, at, 'America/New_York')).toBe(true); // 02:30 EST
    expect(inMaintenance(window, at, 'Europe/London')).toBe(false); // 07:30
    expect(inMaintenance(window, new Date('2030-01-15T02:59:00Z'), 'Europe/London')).toBe(true);
    expect(inMaintenance(window, new Date('2030-01-15T04:00:00Z'), 'Europe/London')).toBe(false);
    // summer time: 02:30 in London is 01:30 UTC
    expect(inMaintenance(window, new Date('2030-07-15T01:30:00Z'), 'Europe/London')).toBe(true);
    expect(inMaintenance(undefined, at, 'America/New_York')).toBe(false);
    expect(localMinutes(at, 'Not/AZone')).toBe(7 * 60 + 30);
  });

  it('wraps past midnight', () => {
    const night = parseMaintenanceWindow('23:30-00:30');
    expect(inMaintenance(night, new Date('2030-01-15T23:45:00Z'), 'UTC')).toBe(true);
    expect(inMaintenance(night, new Date('2030-01-15T00:15:00Z'), 'UTC')).toBe(true);
    expect(inMaintenance(night, new Date('2030-01-15T12:00:00Z'), 'UTC')).toBe(false);
  });
});

describe('shipping', () => {
  it('groups countries into regions with ETICKET first', () => {
    expect(['US', 'ca', 'AU', 'NZ'].map(regionOf)).toEqual(['US', 'US', 'US', 'US']);
    expect(['GB', 'IE'].map(regionOf)).toEqual(['GB', 'GB']);
    expect(regionOf('FR')).toBe('INTL');
    const gb = shippingOptions({ region: '', eventCountry: 'IE', secureEntry: false });
    expect(gb[0]!.id).toBe('ETICKET');
    expect(gb.map((o) => o.id)).toContain('GB-ROYALMAIL');
    const us = shippingOptions({ region: 'US', eventCountry: 'GB', secureEntry: false });
    expect(us.map((o) => o.id)).toContain('US-UPS-2DAY');
    expect(
      shippingOptions({ region: 'US', eventCountry: 'US', secureEntry: true }).map((o) => o.id),
    ).toEqual(['ETICKET']);
  });

  it('knows options by id and maps them to partner delivery methods', () => {
    expect(findShippingOption('US-WILLCALL', false)?.serviceLevel).toBe('WILLCALL');
    expect(findShippingOption('US-WILLCALL', true)).toBeUndefined();
    expect(findShippingOption('NOPE', false)).toBeUndefined();
    expect(deliveryMethodType(findShippingOption('ETICKET', false))).toBe('PH');
    expect(deliveryMethodType(findShippingOption('GB-ROYALMAIL', false))).toBe('DS');
    expect(deliveryMethodType(findShippingOption('GB-BOXOFFICE', false))).toBe('PU');
  });
});

describe('seat choice and order numbers', () => {
  const seats = ['1', '2', '4', '5', '6'].map((n) => ({ id: `r1-${n}`, row: '1', number: n }));

  it('finds contiguous seats, or the asked range, or nothing', () => {
    expect(
      chooseSeats(seats, { row: '', beginSeat: 0, endSeat: 0, quantity: 3 })?.map((s) => s.number),
    ).toEqual(['4', '5', '6']);
    expect(
      chooseSeats(seats, { row: '1', beginSeat: 1, endSeat: 2, quantity: 2 })?.map((s) => s.id),
    ).toEqual(['r1-1', 'r1-2']);
    expect(chooseSeats(seats, { row: '1', beginSeat: 2, endSeat: 4, quantity: 3 })).toBeUndefined();
    expect(chooseSeats(seats, { row: '2', beginSeat: 0, endSeat: 0, quantity: 1 })).toBeUndefined();
  });

  it('makes readable order numbers without look-alike characters', () => {
    const number = orderNumberFrom(new Uint8Array([0, 1, 2, 3, 31, 32, 255, 100]));
    expect(number).toMatch(/^MQ-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
    expect(number).toBe('MQ-2345-Z2Z6');
  });

  it('charges per ticket and per order exactly what ticketPrice and orderFees show', () => {
    // ticketPrice is what every API shows (top picks, availability, commerce offers,
    // international discovery's including_ticket_fees): a reserve charges the same.
    for (const face of [1, 999, 1_000, 1_005, 3_000, 45_500, 150_000_000]) {
      const priced = priceCart({
        tickets: [ticket('1', face), ticket('2', face)],
        fees: DEFAULT_FEES,
      });
      expect(priced.lines[0]!.totals.grand).toBe(2 * ticketPrice(face, DEFAULT_FEES).totalMinor);
      expect(priced.totals.grand).toBe(
        2 * ticketPrice(face, DEFAULT_FEES).totalMinor + orderFees(DEFAULT_FEES).totalMinor,
      );
    }
  });
});
