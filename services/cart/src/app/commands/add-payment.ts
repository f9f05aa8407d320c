import { pay, type CartBilling } from '../../domain/cart.js';
import { CartError, ErrorCode, invalidInput, staleCart } from '../../domain/errors.js';
import { priceCart } from '../../domain/pricing.js';
import { DEFAULT_SHIPPING } from '../../domain/shipping.js';
import type { Cart } from '../../domain/cart.js';
import { BuyerLimit } from '../core/buyer-limit.js';
import type { CartCore } from '../core/cart-core.js';
import type { Authorization, PaymentActionRequired, Stored } from '../ports.js';
import type { BillingInput, CartOwner, CartView } from '../types.js';

/**
 * Authorises the payment of the unpaid total and moves the cart to PAID. A declined payment is
 * FAILED_PRECONDITION (20122, 20129, 20152) and leaves the cart HELD without a payment; a
 * processor that does not answer is UNAVAILABLE (20001), the payment then counts as not taken.
 * An authorisation the cart could not be written with (it changed meanwhile) is voided at once.
 * A card whose issuer asks for 3-D Secure is FAILED_PRECONDITION (20122) with `payment_action`
 * in the details (the processor's payment id, client secret and next action): the cart stays HELD
 * and unchanged, the client runs the action with Stripe.js and sends the same payment again.
 */
export class AddPayment {
  readonly #buyerLimit: BuyerLimit;

  constructor(private readonly core: CartCore) {
    this.#buyerLimit = new BuyerLimit(core.deps.carts, core.deps.orders);
  }

  async handle(
    owner: CartOwner,
    cartId: string,
    billing: BillingInput,
    eventId?: string,
  ): Promise<CartView> {
    const cart = await this.core.owned(owner, cartId, eventId);
    this.core.assertOutsideMaintenance(cart);
    const now = this.core.now();
    const { delivery, amountMinor } = this.#payable(cart, billing, now);
    // The account's tickets across carts stay within the event's limit (BuyerLimit): the cart
    // claims the account, then counts, before any money is asked for.
    const claimed =
      billing.thirdPartyAccountId && !cart.sandbox
        ? await this.#claimBuyer(cart, billing.thirdPartyAccountId)
        : cart;
    const processor = this.core.processorFor(cart);
    // Recorded first, so that an authorisation a crash leaves behind is found and voided once
    // the cart has ended (SweepAbandonedPayments). Sandbox carts move no money.
    if (!cart.sandbox) await this.core.deps.attempts.record(cart.id, now);
    const authorization = authorized(
      await processor.authorize({
        reference: `${cart.id}:${claimed.version}`,
        cartId: cart.id,
        amountMinor,
        currency: cart.currency,
        nonce: billing.cardNonce,
        cin: billing.cin,
        expireMonth: billing.expireMonth,
        expireYear: billing.expireYear,
      }),
    );
    const payment = {
      paymentId: authorization.paymentId,
      type: billing.type || 'CC',
      amountMinor,
      issuer: authorization.issuer,
      maskedNumber: `************${authorization.last4}`,
      expireMonth: billing.expireMonth,
      expireYear: billing.expireYear,
      status: 'AUTHORIZED' as const,
      authorizedAt: now,
    };
    try {
      const written = await this.core.mutate(cart.id, (current) => {
        if (current.status !== 'HELD' || current.version !== claimed.version)
          throw staleCart(`cart ${cart.id} changed while the payment was authorised`);
        return pay({ ...current, delivery }, payment, keptBilling(billing), now);
      });
      return this.core.view(written!);
    } catch (error) {
      await processor
        .void(authorization.paymentId)
        .catch((voidError: unknown) =>
          this.core.deps.log.error(
            { cart_id: cart.id, payment_id: authorization.paymentId, err: voidError },
            'void of an unused authorisation failed',
          ),
        );
      throw error;
    }
  }

  /**
   * Checks the cart can take this payment (held, a nonce, the secure-entry account, an email, the
   * cart's currency) and that it is of exactly the unpaid total; answers the delivery and total.
   */
  #payable(
    cart: Stored<Cart>,
    billing: BillingInput,
    now: Date,
  ): { delivery: NonNullable<Cart['delivery']>; amountMinor: number } {
    this.core.assertHeld(cart, now);
    if (cart.status !== 'HELD')
      throw staleCart(`cart ${cart.id} is ${cart.status}: it cannot take a payment`, {
        status: cart.status,
      });
    if (!billing.cardNonce) throw invalidInput('a card payment nonce is required', 'card.number');
    if (cart.secureEntryEnabled && !billing.thirdPartyAccountId)
      throw invalidInput(
        'third_party_account_id is required for events with secure entry',
        'third_party_account_id',
      );
    if (!billing.email) throw invalidInput('email_address is required', 'email_address');
    const delivery = cart.delivery ?? DEFAULT_SHIPPING;
    const priced = priceCart({ tickets: cart.tickets, fees: cart.fees!, delivery });
    if (billing.currency && billing.currency.toUpperCase() !== cart.currency)
      throw invalidInput(`the cart is priced in ${cart.currency}`, 'currency');
    if (billing.amountMinor !== priced.totals.unpaid)
      throw invalidInput(
        `amount must equal the unpaid total ${priced.totals.unpaid} (minor units of ${cart.currency})`,
        'amount',
      );
    return { delivery, amountMinor: priced.totals.unpaid };
  }

  /**
   * Writes the account on the cart (unless it is there already), then counts the account's
   * tickets; over the event's limit the claim is withdrawn (the cart stops counting for the
   * account) and the refusal thrown, FAILED_PRECONDITION 20061.
   */
  async #claimBuyer(cart: Stored<Cart>, accountId: string): Promise<Stored<Cart>> {
    const stale = () => staleCart(`cart ${cart.id} changed while the payment was being taken`);
    const claimed =
      cart.buyerAccountId === accountId
        ? cart
        : await this.core.mutate(cart.id, (current) => {
            if (current.status !== 'HELD' || current.version !== cart.version) throw stale();
            return { ...current, buyerAccountId: accountId };
          });
    if (!claimed) throw stale();
    const event = await this.core.event(cart.eventId);
    const refusal = await this.#buyerLimit.refusalOf(claimed, { accountId }, event);
    if (!refusal) return claimed;
    await this.core.mutate(cart.id, (current) => {
      if (current.buyerAccountId !== accountId) return undefined;
      const { buyerAccountId: _withdrawn, ...rest } = current;
      return rest;
    });
    throw refusal;
  }
}

/** What the cart keeps of the billing: the buyer, never the card. */
const keptBilling = (billing: BillingInput): CartBilling => ({
  firstName: billing.firstName,
  lastName: billing.lastName,
  email: billing.email,
  thirdPartyAccountId: billing.thirdPartyAccountId,
  reference: billing.reference,
  countryCode: billing.countryCode,
});

/**
 * The authorisation, or the 3-D Secure refusal: FAILED_PRECONDITION 20122 with the action the
 * client runs with Stripe.js before it sends the same payment again.
 */
function authorized(authorization: Authorization | PaymentActionRequired): Authorization {
  if (authorization.status !== 'requires_action') return authorization;
  throw new CartError(
    'failed_precondition',
    ErrorCode.PAYMENT_NOT_ACCEPTED,
    'the card issuer asks the cardholder to authenticate (3-D Secure): run payment_action with Stripe.js, then send the same payment again',
    {
      payment_action: {
        type: authorization.nextActionType,
        payment_id: authorization.paymentId,
        client_secret: authorization.clientSecret,
        ...(authorization.redirectUrl ? { redirect_url: authorization.redirectUrl } : {}),
      },
    },
  );
}
