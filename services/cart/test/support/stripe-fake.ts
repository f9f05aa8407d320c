import Stripe from 'stripe';
import type { StripeClient } from '../../src/adapters/stripe-processor.js';

/**
 * An in-memory Stripe for unit tests: PaymentIntents and refunds kept in Maps, with the state
 * machine and idempotency of the real API as the adapter relies on them (a key replays its first
 * answer, errors included; a key reused with other parameters is refused). It throws the SDK's own
 * error classes. PaymentMethods are Stripe's test ids:
 *
 * | PaymentMethod                                   | outcome                                    |
 * | ----------------------------------------------- | ------------------------------------------ |
 * | `pm_card_visa`, `pm_card_mastercard`            | authorised (4242, 4444)                    |
 * | `pm_card_authenticationRequired`                | requires_action (3-D Secure)               |
 * | `pm_card_visa_chargeDeclinedInsufficientFunds`  | card_declined / insufficient_funds         |
 * | `pm_card_chargeDeclinedIncorrectCvc`            | incorrect_cvc                              |
 * | `pm_card_chargeDeclinedExpiredCard`             | expired_card                               |
 * | `pm_card_chargeDeclinedProcessingError`         | processing_error                           |
 * | `pm_card_chargeDeclined`                        | card_declined / generic_decline            |
 * | `pm_card_chargeDeclinedAuthenticationRequired`  | authentication_required (fake-only id)     |
 * | `pm_card_processingErrorOnce`                   | processing_error, then authorised (fake-only) |
 * | any other `pm_...`                              | no such PaymentMethod (resource_missing)   |
 */
export class FakeStripe implements StripeClient {
  readonly intents = new Map<string, Stripe.PaymentIntent>();
  readonly refundsById = new Map<string, Stripe.Refund>();
  /** Every request, in order: method name, arguments and idempotency key. */
  readonly requests: { call: string; args: unknown[]; idempotencyKey: string | undefined }[] = [];
  /** When set, every request fails as if Stripe could not be reached. */
  outage = false;
  readonly #replies = new Map<string, { request: string; reply: () => unknown }>();
  readonly #attempts = new Map<string, number>();
  #next = 1;

  readonly paymentIntents: StripeClient['paymentIntents'] = {
    create: (params, options) =>
      this.#call('paymentIntents.create', [params], options, () => this.#create(params)),
    confirm: (id, params, options) =>
      this.#call('paymentIntents.confirm', [id, params], options, () => {
        const intent = this.#intent(id);
        if (
          intent.status !== 'requires_payment_method' &&
          intent.status !== 'requires_confirmation'
        )
          throw unexpectedState(intent);
        if (params?.payment_method) intent.payment_method = params.payment_method;
        return this.#confirm(intent, params?.expand);
      }),
    retrieve: (id, params, options) =>
      this.#call('paymentIntents.retrieve', [id, params], options, () =>
        this.#view(this.#intent(id), params?.expand),
      ),
    capture: (id, params, options) =>
      this.#call('paymentIntents.capture', [id, params], options, () => {
        const intent = this.#intent(id);
        if (intent.status !== 'requires_capture') throw unexpectedState(intent);
        const amount = params?.amount_to_capture ?? intent.amount_capturable;
        if (amount > intent.amount_capturable)
          throw invalid('amount_too_large', 'amount_to_capture is larger than the authorisation');
        Object.assign(intent, {
          status: 'succeeded',
          amount_received: amount,
          amount_capturable: 0,
        });
        return this.#view(intent);
      }),
    search: (params, options) =>
      this.#call('paymentIntents.search', [params], options, () => {
        const cart = /^metadata\['marquee_cart'\]:'([^']*)'$/.exec(params.query)?.[1];
        const data = [...this.intents.values()]
          .filter((i) => cart !== undefined && i.metadata?.['marquee_cart'] === cart)
          .map((i) => this.#view(i));
        return {
          object: 'search_result',
          data,
          has_more: false,
          next_page: null,
          url: '/v1/payment_intents/search',
        } as unknown as Stripe.ApiSearchResult<Stripe.PaymentIntent>;
      }),
    cancel: (id, params, options) =>
      this.#call('paymentIntents.cancel', [id, params], options, () => {
        const intent = this.#intent(id);
        if (intent.status === 'succeeded' || intent.status === 'canceled')
          throw unexpectedState(intent);
        Object.assign(intent, { status: 'canceled', amount_capturable: 0 });
        return this.#view(intent);
      }),
  };

  readonly refunds: StripeClient['refunds'] = {
    create: (params, options) =>
      this.#call('refunds.create', [params], options, () => {
        const intent = this.#intent(params.payment_intent ?? '');
        if (intent.status !== 'succeeded')
          throw invalid('charge_not_captured', 'the PaymentIntent has no captured charge');
        const refunded = [...this.refundsById.values()]
          .filter((r) => r.payment_intent === intent.id)
          .reduce((sum, r) => sum + r.amount, 0);
        const amount = params.amount ?? intent.amount_received - refunded;
        if (amount <= 0 || refunded + amount > intent.amount_received)
          throw invalid('amount_too_large', 'the refund is larger than what is left to refund');
        const refund = {
          id: `re_fake_${this.#next++}`,
          object: 'refund',
          amount,
          currency: intent.currency,
          payment_intent: intent.id,
          status: 'succeeded',
        } as Stripe.Refund;
        this.refundsById.set(refund.id, refund);
        return { ...refund };
      }),
  };

  /** The idempotency keys of the requests made so far, in order (undefined: none sent). */
  keys(call?: string): (string | undefined)[] {
    return this.requests.filter((r) => !call || r.call === call).map((r) => r.idempotencyKey);
  }

  /** The port's view of an intent. */
  state(intentId: string): 'authorized' | 'captured' | 'voided' | 'other' {
    const status = this.intents.get(intentId)?.status;
    if (status === 'requires_capture') return 'authorized';
    if (status === 'succeeded') return 'captured';
    if (status === 'canceled') return 'voided';
    return 'other';
  }

  /** What the cardholder's browser does with Stripe.js: passes (or fails) 3-D Secure. */
  authenticate(intentId: string, passed: boolean): void {
    const intent = this.#intent(intentId);
    if (intent.status !== 'requires_action') throw new Error(`${intentId} is ${intent.status}`);
    Object.assign(
      intent,
      passed
        ? { status: 'requires_capture', amount_capturable: intent.amount, next_action: null }
        : {
            status: 'requires_payment_method',
            next_action: null,
            last_payment_error: {
              type: 'invalid_request_error',
              code: 'payment_intent_authentication_failure',
            },
          },
    );
  }

  async #call<T>(
    call: string,
    args: unknown[],
    options: Stripe.RequestOptions | undefined,
    run: () => T,
  ): Promise<T> {
    const key = options?.idempotencyKey;
    this.requests.push({ call, args: structuredClone(args), idempotencyKey: key });
    if (this.outage)
      throw new Stripe.errors.StripeConnectionError({ message: 'connection refused' });
    if (key === undefined) return run();
    const request = JSON.stringify([call, args]);
    const seen = this.#replies.get(key);
    if (seen) {
      if (seen.request !== request)
        throw new Stripe.errors.StripeIdempotencyError({
          message: 'Keys for idempotent requests can only be used with the same parameters',
          type: 'idempotency_error',
        });
      return seen.reply() as T;
    }
    try {
      const result = run();
      this.#replies.set(key, { request, reply: () => structuredClone(result) });
      return result;
    } catch (error) {
      // Stripe replays the failure, saying so in the Idempotent-Replayed header.
      this.#replies.set(key, {
        request,
        reply: () => {
          throw Object.assign(Object.create(Object.getPrototypeOf(error) as object), error, {
            headers: {
              ...(error as Stripe.errors.StripeError).headers,
              'idempotent-replayed': 'true',
            },
          });
        },
      });
      throw error;
    }
  }

  #create(params: Stripe.PaymentIntentCreateParams): Stripe.PaymentIntent {
    const method = params.payment_method ?? '';
    const card = CARDS[method];
    if (!card)
      throw invalid('resource_missing', `No such PaymentMethod: '${method}'`, 'payment_method');
    const id = `pi_fake_${this.#next++}`;
    const intent = {
      id,
      object: 'payment_intent',
      amount: params.amount,
      amount_capturable: 0,
      amount_received: 0,
      currency: params.currency,
      capture_method: params.capture_method ?? 'automatic_async',
      client_secret: `${id}_secret_fake`,
      metadata: params.metadata ?? {},
      next_action: null,
      last_payment_error: null,
      payment_method: method,
      status: 'requires_confirmation',
    } as unknown as Stripe.PaymentIntent;
    this.intents.set(id, intent);
    if (!params.confirm) return this.#view(intent, params.expand);
    return this.#confirm(intent, params.expand);
  }

  /** A confirmation: the bank's answer for the intent's card. */
  #confirm(intent: Stripe.PaymentIntent, expand?: string[]): Stripe.PaymentIntent {
    const card = CARDS[intent.payment_method as string];
    if (!card) throw invalid('resource_missing', 'No such PaymentMethod', 'payment_method');
    const attempt = (this.#attempts.get(intent.id) ?? 0) + 1;
    this.#attempts.set(intent.id, attempt);
    const decline = card.failFirst && attempt > 1 ? undefined : card.decline;
    Object.assign(intent, { last_payment_error: null, next_action: null });
    if (decline) {
      Object.assign(intent, {
        status: 'requires_payment_method',
        last_payment_error: { type: 'card_error', ...decline },
      });
      throw new Stripe.errors.StripeCardError({
        type: 'card_error',
        message: 'Your card was declined.',
        ...decline,
        payment_intent: this.#view(intent),
      });
    }
    if (card.threeDSecure)
      Object.assign(intent, {
        status: 'requires_action',
        next_action: { type: 'use_stripe_sdk', use_stripe_sdk: {} },
      });
    else if (intent.capture_method === 'manual')
      Object.assign(intent, { status: 'requires_capture', amount_capturable: intent.amount });
    else Object.assign(intent, { status: 'succeeded', amount_received: intent.amount });
    return this.#view(intent, expand);
  }

  #intent(id: string): Stripe.PaymentIntent {
    const intent = this.intents.get(id);
    if (!intent) throw invalid('resource_missing', `No such payment_intent: '${id}'`, 'intent');
    return intent;
  }

  /** A copy, with the PaymentMethod expanded when asked. */
  #view(intent: Stripe.PaymentIntent, expand?: string[]): Stripe.PaymentIntent {
    const copy = structuredClone(intent);
    const method = intent.payment_method as string;
    if (expand?.includes('payment_method'))
      copy.payment_method = {
        id: method,
        object: 'payment_method',
        type: 'card',
        card: { brand: CARDS[method]!.brand, last4: CARDS[method]!.last4 },
      } as Stripe.PaymentMethod;
    return copy;
  }
}

interface TestCard {
  brand: string;
  last4: string;
  decline?: { code: string; decline_code?: string };
  /** The decline happens at the first confirmation only. */
  failFirst?: boolean;
  threeDSecure?: boolean;
}

const CARDS: Record<string, TestCard> = {
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', threeDSecure: true },
  pm_card_visa_chargeDeclinedInsufficientFunds: {
    brand: 'visa',
    last4: '9995',
    decline: { code: 'card_declined', decline_code: 'insufficient_funds' },
  },
  pm_card_chargeDeclinedIncorrectCvc: {
    brand: 'visa',
    last4: '0127',
    decline: { code: 'incorrect_cvc' },
  },
  pm_card_chargeDeclinedExpiredCard: {
    brand: 'visa',
    last4: '0069',
    decline: { code: 'expired_card' },
  },
  pm_card_chargeDeclinedProcessingError: {
    brand: 'visa',
    last4: '0119',
    decline: { code: 'processing_error' },
  },
  // Not a Stripe test id: the decline off-session payments get when the issuer wants 3-D Secure.
  pm_card_chargeDeclinedAuthenticationRequired: {
    brand: 'visa',
    last4: '3155',
    decline: { code: 'card_declined', decline_code: 'authentication_required' },
  },
  pm_card_processingErrorOnce: {
    brand: 'visa',
    last4: '0119',
    decline: { code: 'processing_error' },
    failFirst: true,
  },
  pm_card_chargeDeclined: {
    brand: 'visa',
    last4: '0002',
    decline: { code: 'card_declined', decline_code: 'generic_decline' },
  },
};

function invalid(code: string, message: string, param?: string): Error {
  return new Stripe.errors.StripeInvalidRequestError({
    type: 'invalid_request_error',
    code,
    message,
    ...(param ? { param } : {}),
  });
}

function unexpectedState(intent: Stripe.PaymentIntent): Error {
  return invalid(
    'payment_intent_unexpected_state',
    `This PaymentIntent's status is ${intent.status}`,
  );
}
