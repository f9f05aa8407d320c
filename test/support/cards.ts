/**
 * The card "numbers" the cross-service tiers pay with. Production-prefix carts are paid through
 * cart's Stripe adapter (against stripe-mock, `stack.ts`): the card is a Stripe test PaymentMethod
 * id, as Stripe.js makes it in a cardholder's browser. Sandbox-prefix carts (`/partners-preprod`,
 * `/marketplace-staging`) are paid through the sandbox processor, with its nonces.
 */
const SANDBOX_PREFIXES = ['/partners-preprod/', '/marketplace-staging/'];

const sandbox = (path: string): boolean =>
  SANDBOX_PREFIXES.some((prefix) => path.startsWith(prefix) || `${path}/`.startsWith(prefix));

/** A card the processor of `path`'s carts approves. */
export const approvedCard = (path: string): string =>
  sandbox(path) ? 'fake-valid-nonce' : 'pm_card_visa';

/** A card the processor of `path`'s carts declines (20122). */
export const declinedCard = (path: string): string =>
  sandbox(path) ? 'fake-processor-declined-nonce' : 'pm_card_chargeDeclined';
