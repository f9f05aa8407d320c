import { createServiceStores } from '@marquee/platform/store';
import { createSandboxProcessor } from '../../src/adapters/sandbox-processor.js';
import { createCartStorage } from '../../src/adapters/stores.js';
import { createStripeProcessor } from '../../src/adapters/stripe-processor.js';
import { CartApp, type BillingInput } from '../../src/app/index.js';
import { EventProjectionStore } from '../../src/adapters/event-projection-store.js';
import { cartAppDefaults } from './cart-app.js';
import { area, availability, EVENT_ID, partnerEvent } from './events.js';
import { FakeConnector } from './fake-connector.js';
import { FakeStripe } from './stripe-fake.js';

/**
 * A production cart app paying through the Stripe adapter over the in-memory fake, on memory
 * storage holding the partner event with 5 seats; its clock starts at 2030-06-01T12:00:00Z and
 * moves only by `advance`.
 */
export async function stripeCartApp() {
  let at = new Date('2030-06-01T12:00:00Z').getTime();
  const now = () => new Date(at);
  const advance = (ms: number) => {
    at += ms;
  };
  const storage = createCartStorage(createServiceStores(undefined), { sandboxAreaCapacity: 100 });
  const projection = new EventProjectionStore(storage.events, now);
  await projection.applyEvent(partnerEvent({}));
  await projection.applyAvailability(availability(1, [area({ available: 5, unavailable: 0 })]));
  const stripe = new FakeStripe();
  const connector = new FakeConnector(10, now);
  const app = new CartApp({
    ...storage,
    events: projection,
    connector,
    processor: createStripeProcessor(stripe),
    sandboxProcessor: createSandboxProcessor({ timeoutMs: 5 }),
    ...cartAppDefaults(now),
  });
  return { app, stripe, storage, advance, connector };
}

/** The partner cart's production owner the Stripe tests buy as. */
export const stripeOwner = { appId: 'app-1', sandbox: false, channel: 'partner-cart' as const };

/** A reserve request of `quantity` adult tickets. */
export const adult = (quantity: number) => ({ tickets: [{ priceTypeId: '000001', quantity }] });

/** Billing of `amountMinor` GBP with the card nonce (a PaymentMethod id) `nonce`, for fan-1. */
export const billing = (amountMinor: number, nonce: string): BillingInput => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.test',
  type: 'CC',
  reference: 'ref',
  countryCode: 'GB',
  amountMinor,
  currency: 'GBP',
  cardNonce: nonce,
  cin: '',
  expireMonth: 12,
  expireYear: 2032,
  thirdPartyAccountId: 'fan-1',
});

/** A committed production order of `quantity` tickets paid through the Stripe fake. */
export async function boughtOrder(app: CartApp, quantity: number) {
  const view = await app.reserve({
    owner: stripeOwner,
    eventId: EVENT_ID,
    requests: [adult(quantity)],
  });
  const unpaid = view.priced.totals.unpaid;
  await app.addPayment(stripeOwner, view.cart.id, billing(unpaid, 'pm_card_visa'));
  const { order } = await app.commit(stripeOwner, view.cart.id);
  return { order, unpaid };
}
