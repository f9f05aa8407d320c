import { createServiceStores } from '@marquee/platform/store';
import { createSandboxProcessor } from '../../src/adapters/sandbox-processor.js';
import { createCartStorage } from '../../src/adapters/stores.js';
import { createStripeProcessor } from '../../src/adapters/stripe-processor.js';
import { CartApp } from '../../src/app/index.js';
import { EventProjectionStore } from '../../src/events/store.js';
import { cartAppDefaults } from './cart-app.js';
import { area, availability, partnerEvent } from './events.js';
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
  const app = new CartApp({
    ...storage,
    events: projection,
    connector: new FakeConnector(10, now),
    processor: createStripeProcessor(stripe),
    sandboxProcessor: createSandboxProcessor({ timeoutMs: 5 }),
    ...cartAppDefaults(now),
  });
  return { app, stripe, storage, advance };
}
