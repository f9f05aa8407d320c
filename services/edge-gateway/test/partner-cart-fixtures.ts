import { createHttpServer } from '@marquee/platform/http';
import type { WaitingRoomBackend } from '../src/app/waiting-room.js';
import { createLogger } from '@marquee/platform/logger';
import type { FastifyInstance } from 'fastify';
import type { DeveloperAccess } from '../src/app/backends.js';
import type {
  CartAnswer,
  CartRecord,
  EventAvailability,
  PartnerCart,
} from '../src/app/partner-cart.js';
import { registerEdgeRoutes } from '../src/ports/http/edge-app.js';
import { fakeBackends } from './fakes.js';

export const KEY = 'partner-key-0001';
export const OTHER_KEY = 'partner-key-0002';
export const OVER_QUOTA_KEY = 'partner-key-over';
/** The key of an app without partner distribution access. */
export const NOT_DISTRIBUTOR_KEY = 'partner-key-plain';
/** The key of an app with a held-ticket quota of its own (7). */
export const QUOTA_KEY = 'partner-key-quota';
/** The public tracking id of app-1 (the tracking pixel's credential). */
export const TRACKING_ID = 'mqt_app1app1app1app1app1ap';
/** The tracking id of app-4, without partner distribution access. */
export const NOT_DISTRIBUTOR_TRACKING_ID = 'mqt_app4app4app4app4app4ap';
export const EVENT = 'G5vYZ9abcdefghi';
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export const usd = (amountMinor: number) => ({ amountMinor, currency: 'USD' });

/** The totals of the held cart of two 25.50 USD seats (63.74 USD with fees and tax). */
export const cartTotals = () => ({
  merchandise: usd(5100),
  fee: usd(1200),
  tax: usd(74),
  delivery: usd(0),
  upsell: usd(0),
  grand: usd(6374),
  unpaid: usd(6374),
});

/** The held cart's one line, seats 7 and 8 of row C in section 101 (its tickets apart). */
export const seatsLine = () => ({
  id: 1,
  areaId: 'A1',
  areaDescription: 'Floor',
  section: '101',
  row: 'C',
  startSeat: '7',
  endSeat: '8',
  generalAdmission: false,
  quantity: 2,
});

/** The totals of that line. */
export const seatsLineTotals = () => ({
  merchandise: usd(5100),
  fee: usd(900),
  tax: usd(74),
  grand: usd(6074),
});

/**
 * Keys: KEY is app-1, OTHER_KEY app-2, OVER_QUOTA_KEY an app over its quota, all distributors;
 * NOT_DISTRIBUTOR_KEY app-4, without partner distribution access; others unknown.
 */
export function fakeAccess(seen: string[] = []): Partial<DeveloperAccess> {
  const apps: Record<string, string> = {
    [KEY]: 'app-1',
    [OTHER_KEY]: 'app-2',
    [OVER_QUOTA_KEY]: 'app-3',
    [NOT_DISTRIBUTOR_KEY]: 'app-4',
    [QUOTA_KEY]: 'app-5',
  };
  const tracked: Record<string, string> = {
    [TRACKING_ID]: 'app-1',
    [NOT_DISTRIBUTOR_TRACKING_ID]: 'app-4',
  };
  return {
    async resolveTrackingId(id) {
      seen.push(`tracking:${id}`);
      const appId = tracked[id];
      return {
        valid: appId !== undefined,
        appId: appId ?? '',
        access: { commerceShopping: false, partnerDistribution: appId === 'app-1' },
      };
    },
    async validateApiKey(key) {
      seen.push(key);
      const appId = apps[key];
      return {
        valid: appId !== undefined,
        appId: appId ?? '',
        access: { commerceShopping: false, partnerDistribution: appId !== 'app-4' },
        // app-5 has a held-ticket quota of its own; the others leave it to cart's default.
        ...(appId === 'app-5' ? { heldTicketsPerEvent: 7 } : {}),
      };
    },
    async checkRateLimit(appId) {
      return {
        limit: 5,
        available: appId === 'app-3' ? 0 : 4,
        resetEpochMs: Date.now() + 2_500,
        over: appId === 'app-3',
      };
    },
  };
}

/** A held cart of two seats with fees, tax, a processing fee, delivery and a masked payment. */
export function heldCart(overrides: Partial<CartRecord> = {}): CartRecord {
  return {
    id: 'cart-1',
    eventId: EVENT,
    status: 'HELD',
    holdTimeSeconds: 600,
    expiresAt: new Date(Date.now() + 600_000),
    language: 'en-us',
    ticketItems: [
      {
        ...seatsLine(),
        tickets: [
          {
            id: '000001',
            description: 'Adult',
            quantity: 2,
            inventoryType: 'PRIMARY',
            charges: [
              { type: 'face_value', price: usd(2550), quantity: 2, tax: usd(0), feeType: '' },
              {
                type: 'service',
                price: usd(450),
                quantity: 2,
                tax: usd(37),
                feeType: 'per ticket',
              },
            ],
            priceLevelId: 'PL1',
          },
        ],
        totals: seatsLineTotals(),
        seats: ['7', '8'],
        inventoryType: 'PRIMARY',
      },
    ],
    processingFee: usd(300),
    delivery: {
      id: 'ship-e',
      carrier: 'Marquee',
      serviceLevel: 'ETICKET',
      requiresAddress: false,
      descriptionLong: 'Mobile tickets',
      descriptionShort: 'Mobile',
      eta: 'now',
      totals: { fee: usd(0), grand: usd(0), merchandise: usd(0), tax: usd(0) },
      rank: 1,
    },
    payments: [],
    agreements: [
      {
        name: 'Terms',
        locale: 'en-us',
        text: 'I accept the terms',
        type: 'acknowledgement',
        agreementUrl: 'https://example.com/terms',
      },
    ],
    totals: cartTotals(),
    currency: 'USD',
    sandbox: false,
    failureCode: '',
    failureMessage: '',
    secureEntryEnabled: true,
    createdAt: new Date('2030-01-01T00:00:00Z'),
    ...overrides,
  };
}

export const answer = (cart: CartRecord, pollAfterSeconds = 0): CartAnswer => ({
  cart,
  pollAfterSeconds,
});

export function availability(overrides: Partial<EventAvailability> = {}): EventAvailability {
  return {
    eventId: EVENT,
    secureEntryEnabled: true,
    currency: 'USD',
    ticketLimit: 8,
    onSale: true,
    areas: [
      {
        areaId: 'A1',
        levelId: 'L1',
        sectionId: '101',
        priceLevelId: 'PL1',
        generalAdmission: false,
        available: 3,
        unavailable: 7,
        availableSeats: [
          { id: 's1', row: 'C', number: '7' },
          { id: 's2', row: 'C', number: '8' },
          { id: 's3', row: 'D', number: '1' },
        ],
      },
      {
        areaId: 'GA',
        levelId: '',
        sectionId: '',
        priceLevelId: 'PL2',
        generalAdmission: true,
        available: 100,
        unavailable: 0,
        availableSeats: [],
      },
    ],
    totalAvailable: 103,
    offers: [
      {
        ticketTypeId: '000001',
        priceLevelId: 'PL1',
        name: 'Adult',
        faceValue: usd(2550),
        charges: [
          { type: 'service', price: usd(450), quantity: 1, tax: usd(37), feeType: 'per ticket' },
        ],
        protected: false,
      },
    ],
    observedAt: new Date('2030-01-01T00:00:00Z'),
    onsaleAt: new Date('2029-01-01T00:00:00Z'),
    offsaleAt: new Date('2099-01-01T00:00:00Z'),
    ...overrides,
  };
}

export interface EdgeHarness {
  app: FastifyInstance;
  logs: string[];
  keysSeen: string[];
}

/** The whole edge (every family) with a fake partner cart and logs captured at trace level. */
export async function partnerEdge(
  partnerCart: Partial<PartnerCart>,
  more: { waitingRoom?: Partial<WaitingRoomBackend> } = {},
): Promise<EdgeHarness> {
  const logs: string[] = [];
  const keysSeen: string[] = [];
  const app = createHttpServer({
    logger: createLogger({
      service: 'edge-test',
      level: 'trace',
      destination: { write: (line: string) => void logs.push(line) },
    }),
  });
  await registerEdgeRoutes(app, {
    adminToken: ADMIN_TOKEN,
    version: 'test',
    backends: fakeBackends({ partnerCart, developerAccess: fakeAccess(keysSeen), ...more }),
  });
  await app.ready();
  return { app, logs, keysSeen };
}

/** An error as the gRPC adapter produces it: a kind, and the partner code as `details.reason`. */
export const partnerFailure = (kind: string, reason: string, message = `failed with ${reason}`) =>
  Object.assign(new Error(message), { kind, details: { reason } });
