import { DEVELOPMENT_CONTACT_KEYS, sealOrderContact } from '@marquee/proto/order-contact';
import { createHash, randomBytes } from 'node:crypto';
import type { ScanLimits } from '../../src/domain/scan-throttle.js';
import { createServiceStores, type ServiceStores } from '@marquee/platform/store';
import type { OrderConfirmed } from '@marquee/proto/cart/v1';
import { OrderConfirmed as OrderConfirmedMessage } from '@marquee/proto/cart/v1';
import {
  createEntryCrypto,
  cryptoRandomness,
  type TokenKey,
} from '../../src/adapters/entry-crypto.js';
import { createEntryStorage, type EntryStorage } from '../../src/adapters/stores.js';
import { FanErasure } from '../../src/app/fan-erasure.js';
import { SecureEntry } from '../../src/app/secure-entry.js';

export const EVENT_ID = 'EvSecure0000001';
export const OTHER_EVENT_ID = 'EvOther00000001';

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A confirmed order of a secure-entry event with `seats` tickets, and the buyer's order token. */
export function confirmedOrder(
  over: Partial<OrderConfirmed> & {
    seats?: string[];
    /** Sealed into `sealed_contact` (development ring) with the e-mail. */
    thirdPartyAccountId?: string;
    customerEmail?: string;
    /** Sealed into `sealed_contact` too (a commerce order's fan). */
    fanId?: string;
  } = {},
): {
  message: OrderConfirmed;
  orderToken: string;
} {
  const orderToken = randomBytes(24).toString('base64url');
  const { seats: seatList, thirdPartyAccountId, customerEmail, fanId, ...fields } = over;
  const seats = seatList ?? ['7', '8'];
  const orderId = over.orderId ?? `ord-${randomBytes(4).toString('hex')}`;
  const message = OrderConfirmedMessage.fromPartial({
    orderId,
    cartId: `cart-${orderId}`,
    eventId: EVENT_ID,
    partnerId: 'prt-1',
    appId: 'app-1',
    sealedContact: sealOrderContact(
      {
        customerEmail: customerEmail ?? 'fan@example.com',
        thirdPartyAccountId: thirdPartyAccountId ?? 'user-42',
        fanId: fanId ?? '',
      },
      orderId,
      DEVELOPMENT_CONTACT_KEYS,
    ),
    secureEntryEnabled: true,
    orderTokenSha256: sha256(orderToken),
    deliveryOption: {
      id: 'ETK',
      carrier: 'Marquee',
      serviceLevel: 'ETICKET',
      description: 'Mobile ticket',
    },
    confirmedAt: new Date('2026-05-01T10:00:00Z'),
    tickets: seats.map((seat, i) => ({
      ticketId: `PT-${orderId}-${i + 1}`,
      seat,
      item: {
        areaId: 'A1',
        section: '101',
        row: 'C',
        seats: [seat],
        quantity: 1,
        unitPrice: { amountMinor: 5000, currency: 'USD' },
      },
    })),
    ticketsAmount: { amountMinor: 5000 * seats.length, currency: 'USD' },
    fees: { amountMinor: 301, currency: 'USD' },
    taxes: { amountMinor: 0, currency: 'USD' },
    delivery: { amountMinor: 0, currency: 'USD' },
    grandTotal: { amountMinor: 5000 * seats.length + 301, currency: 'USD' },
    ...fields,
  });
  return { message, orderToken };
}

export interface Harness {
  entry: SecureEntry;
  erasure: FanErasure;
  storage: EntryStorage;
  stores: ServiceStores;
  clock: { now: Date; set(at: Date | number): void; advance(ms: number): void };
}

export const testKeys = (ids: string[] = ['k1']): TokenKey[] =>
  ids.map((id) => ({ id, key: createHash('sha256').update(`token-key-${id}`).digest() }));

export function harness(
  options: {
    stores?: ServiceStores;
    tokenKeys?: TokenKey[];
    delayHours?: number;
    refreshHours?: number;
    start?: Date;
    scanLimits?: ScanLimits;
  } = {},
): Harness {
  const stores = options.stores ?? createServiceStores(undefined);
  const storage = createEntryStorage(stores);
  const clock = {
    now: options.start ?? new Date('2026-05-01T12:00:00Z'),
    set(at: Date | number) {
      this.now = new Date(at);
    },
    advance(ms: number) {
      this.now = new Date(this.now.getTime() + ms);
    },
  };
  const entry = new SecureEntry({
    ...storage,
    crypto: createEntryCrypto({
      tokenKeys: options.tokenKeys ?? testKeys(),
      secretKeys: [createHash('sha256').update('secret-key').digest()],
    }),
    random: cryptoRandomness,
    clock: { now: () => clock.now },
    log: { info: () => undefined, warn: () => undefined },
    refreshHours: options.refreshHours ?? 20,
    delayHours: options.delayHours ?? 0,
    gateCacheMs: 5_000,
    ...(options.scanLimits ? { scanLimits: options.scanLimits } : {}),
  });
  const erasure = new FanErasure({ ...storage, clock: { now: () => clock.now } });
  return { entry, erasure, storage, stores, clock };
}

export const device = { id: 'device-1', type: 'native', os: 'ios' };
