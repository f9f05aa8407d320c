import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { AppError } from '@marquee/platform/errors';
import type {
  Authorization,
  PaymentActionRequired,
  PaymentProcessor,
  PaymentRefund,
} from '../app/ports.js';

/**
 * The Stripe API version every request is made with. The SDK's types describe this version only;
 * moving to another is a code change (SDK upgrade, then this), never an account setting.
 */
export const STRIPE_API_VERSION = '2026-10-28.endive' satisfies Stripe.LatestApiVersion;

/**
 * The part of the Stripe SDK the adapter uses. The SDK's `Stripe` satisfies it; unit tests pass an
 * in-memory fake.
 */
export interface StripeClient {
  paymentIntents: {
    create(
      params: Stripe.PaymentIntentCreateParams,
      options?: Stripe.RequestOptions,
    ): Promise<Stripe.PaymentIntent>;
    retrieve(
      id: string,
      params?: Stripe.PaymentIntentRetrieveParams,
      options?: Stripe.RequestOptions,
    ): Promise<Stripe.PaymentIntent>;
    confirm(
      id: string,
      params?: Stripe.PaymentIntentConfirmParams,
      options?: Stripe.RequestOptions,
    ): Promise<Stripe.PaymentIntent>;
    capture(
      id: string,
      params?: Stripe.PaymentIntentCaptureParams,
      options?: Stripe.RequestOptions,
    ): Promise<Stripe.PaymentIntent>;
    cancel(
      id: string,
      params?: Stripe.PaymentIntentCancelParams,
      options?: Stripe.RequestOptions,
    ): Promise<Stripe.PaymentIntent>;
    search(
      params: Stripe.PaymentIntentSearchParams,
      options?: Stripe.RequestOptions,
    ): Promise<Stripe.ApiSearchResult<Stripe.PaymentIntent>>;
  };
  refunds: {
    create(
      params: Stripe.RefundCreateParams,
      options?: Stripe.RequestOptions,
    ): Promise<Stripe.Refund>;
  };
}

/**
 * The SDK client. `apiBase` (`STRIPE_API_BASE`, e.g. stripe-mock's `http://127.0.0.1:12111`)
 * replaces api.stripe.com; `timeoutMs` bounds each request (then UNAVAILABLE, not taken).
 */
export function createStripeClient(options: {
  secretKey: string;
  apiBase?: string;
  timeoutMs: number;
}): Stripe {
  const base = options.apiBase ? new URL(options.apiBase) : undefined;
  return new Stripe(options.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    timeout: options.timeoutMs,
    // No retries inside a request: a step answers within CART_PAYMENT_TIMEOUT_MS, and its caller
    // retries (the client's payment step, commit, the sweeper's owed voids) with the same keys.
    maxNetworkRetries: 0,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'http:' ? 80 : 443),
          protocol: base.protocol === 'http:' ? 'http' : 'https',
        }
      : {}),
  });
}

/** A Stripe PaymentMethod id, as Stripe.js makes it (`pm_` and letters, digits, `_`). */
const PAYMENT_METHOD_ID = /^pm_[A-Za-z0-9_]{1,250}$/;

/** PaymentIntent states that hold (or may still hold) money and can be canceled. */
const VOIDABLE = new Set<Stripe.PaymentIntent.Status>([
  'requires_capture',
  'requires_action',
  'requires_payment_method',
  'requires_confirmation',
  'processing',
]);

const digest = (text: string): string =>
  createHash('sha256').update(text).digest('hex').slice(0, 24);

/**
 * Idempotency key of an authorisation: the cart's reference (cart id and version) and the payment
 * method. A retry of the same payment reuses the PaymentIntent; another card is another intent (a
 * key reused with other parameters is refused by Stripe). The PaymentMethod id is hashed.
 */
export const authorizeKey = (reference: string, paymentMethodId: string): string =>
  `authorize:${reference}:${digest(paymentMethodId)}`;
export const captureKey = (paymentId: string): string => `capture:${paymentId}`;
export const voidKey = (paymentId: string): string => `void:${paymentId}`;

const declined = (code: '20122' | '20129' | '20152', message: string): AppError =>
  new AppError('failed_precondition', message, { details: { reason: code } });

const processorTrouble = (message: string): AppError =>
  new AppError('unavailable', `${message}; the payment was not taken, retry`, {
    details: { reason: '20001' },
  });

/**
 * A Stripe decline as the partner cart's codes say it, like the sandbox's declines: no funds
 * 20129, wrong CVC 20152, Stripe's own processing error is processor trouble (20001, retry), any
 * other decline (card_declined, expired_card, authentication_required, fraud, ...) 20122. The
 * issuer's precise reason is not passed on (Stripe advises not to reveal fraud declines).
 */
function declineOf(code: string | undefined, declineCode: string | undefined): AppError {
  const reasons = [code, declineCode];
  if (reasons.includes('insufficient_funds'))
    return declined('20129', 'the card has insufficient funds');
  if (reasons.includes('incorrect_cvc') || reasons.includes('invalid_cvc'))
    return declined('20152', 'the card verification value is invalid');
  if (reasons.includes('processing_error'))
    return processorTrouble('the payment processor could not process the card');
  if (reasons.includes('expired_card')) return declined('20122', 'the card has expired');
  if (reasons.includes('authentication_required'))
    return declined('20122', 'the card issuer requires authentication, and it was not completed');
  return declined('20122', 'the payment processor declined the payment');
}

/** Any failure of a Stripe call as the port's error kinds. */
function errorOf(error: unknown): Error {
  if (error instanceof AppError) return error;
  if (!(error instanceof Stripe.errors.StripeError)) return error as Error;
  if (error instanceof Stripe.errors.StripeCardError)
    return declineOf(error.code, error.decline_code);
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    if (error.code === 'resource_missing' && error.param === 'payment_method')
      return new AppError('invalid_argument', 'card.number is not a usable PaymentMethod id', {
        details: { reason: '10002', field: 'card.number' },
      });
    if (error.code === 'payment_intent_authentication_failure')
      return declined('20122', 'the cardholder did not pass the card issuer authentication');
    return new AppError('internal', `Stripe refused the request (${error.code ?? 'invalid'})`);
  }
  if (
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeRateLimitError
  )
    return processorTrouble('the payment processor did not answer');
  if (
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError
  )
    return processorTrouble('the payment processor refused our credentials');
  return new AppError('internal', `Stripe failed (${error.type})`);
}

/** The intent of a card error Stripe replayed for an idempotency key it had seen. */
function replayedFailureOf(error: unknown): string | undefined {
  if (!(error instanceof Stripe.errors.StripeCardError)) return undefined;
  if (error.headers?.['idempotent-replayed'] !== 'true') return undefined;
  return error.payment_intent?.id;
}

const unexpectedState = (error: unknown): boolean =>
  error instanceof Stripe.errors.StripeError && error.code === 'payment_intent_unexpected_state';

/** The card brand and last four digits of an intent whose PaymentMethod was expanded. */
function cardOf(intent: Stripe.PaymentIntent): { issuer: string; last4: string } {
  const method = intent.payment_method;
  const card = typeof method === 'object' && method !== null ? method.card : undefined;
  return { issuer: (card?.brand ?? 'card').toUpperCase(), last4: card?.last4 ?? '' };
}

/** What an intent after its confirmation means to the port. */
function answerOf(intent: Stripe.PaymentIntent): Authorization | PaymentActionRequired {
  switch (intent.status) {
    case 'requires_capture':
      return { status: 'authorized', paymentId: intent.id, ...cardOf(intent) };
    case 'requires_action': {
      const next = intent.next_action;
      return {
        status: 'requires_action',
        paymentId: intent.id,
        clientSecret: intent.client_secret ?? '',
        nextActionType: next?.type ?? 'use_stripe_sdk',
        ...(next?.redirect_to_url?.url ? { redirectUrl: next.redirect_to_url.url } : {}),
      };
    }
    case 'requires_payment_method': {
      const last = intent.last_payment_error;
      throw declineOf(last?.code, last?.decline_code);
    }
    case 'canceled':
      throw declined('20122', 'the payment was canceled');
    case 'processing':
      throw processorTrouble('the payment processor is still processing the card');
    default:
      throw new AppError('internal', `unexpected PaymentIntent status ${intent.status}`);
  }
}

type AuthorizeInput = Parameters<PaymentProcessor['authorize']>[0];

/** What an authorisation reads of an intent: its PaymentMethod (the card's issuer and digits). */
const EXPAND = ['payment_method'];

/** A nonce must be a PaymentMethod id Stripe.js made; anything else is refused with 10002. */
function checkPaymentMethod(nonce: string): void {
  if (!PAYMENT_METHOD_ID.test(nonce))
    throw new AppError(
      'invalid_argument',
      'card.number must be a Stripe PaymentMethod id (pm_...) created with Stripe.js',
      { details: { reason: '10002', field: 'card.number' } },
    );
}

/** Reads an intent again, its failure as the processor's error. */
const retrieveIntent = (client: StripeClient, id: string, expand?: string[]) =>
  (expand
    ? client.paymentIntents.retrieve(id, { expand })
    : client.paymentIntents.retrieve(id)
  ).catch((e: unknown) => {
    throw errorOf(e);
  });

/**
 * Creates and confirms the PaymentIntent of an authorisation under its idempotency key. `reread`:
 * this is a retry whose first failure Stripe replayed, and the intent was read again.
 */
async function createIntent(
  client: StripeClient,
  input: AuthorizeInput,
): Promise<{ intent: Stripe.PaymentIntent; reread: boolean }> {
  try {
    const intent = await client.paymentIntents.create(
      {
        amount: input.amountMinor,
        currency: input.currency.toLowerCase(),
        payment_method: input.nonce,
        // Cards (and wallets) only: a method that redirects would need a return URL.
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        capture_method: 'manual',
        confirm: true,
        // A 3-D Secure challenge is run by Stripe.js (handleNextAction), not by a redirect.
        use_stripe_sdk: true,
        metadata: { marquee_reference: input.reference, marquee_cart: input.cartId },
        expand: ['payment_method'],
      },
      { idempotencyKey: authorizeKey(input.reference, input.nonce) },
    );
    return { intent, reread: false };
  } catch (error) {
    // A retry of a declined (or failed) attempt: Stripe replays the first failure for the key.
    const replayed = replayedFailureOf(error);
    if (!replayed) throw errorOf(error);
    return { intent: await retrieveIntent(client, replayed, EXPAND), reread: true };
  }
}

/** The intent as it is now when the answer was a replay: asked the bank again if it failed. */
async function currentIntent(
  client: StripeClient,
  created: { intent: Stripe.PaymentIntent; reread: boolean },
  nonce: string,
): Promise<Stripe.PaymentIntent> {
  let { intent, reread } = created;
  try {
    // A retry after the cardholder's 3-D Secure replays the first answer (requires_action):
    // the intent itself says where it is now.
    if (!reread && intent.status === 'requires_action') {
      intent = await client.paymentIntents.retrieve(intent.id, { expand: EXPAND });
      reread = true;
    }
    // The retry of an attempt that failed (a decline, processor trouble, a failed 3-D
    // Secure) asks the bank again, on the same intent. No idempotency key is needed: an
    // intent authorises at most once, and a confirm of one that has moved on is refused.
    if (reread && intent.status === 'requires_payment_method')
      intent = await client.paymentIntents.confirm(intent.id, {
        payment_method: nonce,
        use_stripe_sdk: true,
        expand: EXPAND,
      });
    return intent;
  } catch (error) {
    if (unexpectedState(error))
      return client.paymentIntents.retrieve(intent.id, { expand: EXPAND });
    throw errorOf(error);
  }
}

/**
 * A capture or cancel Stripe refused as an unexpected state: done when the intent already is
 * `done` (captured or cancelled beyond the idempotency key's 24 hours), else refused.
 */
async function settledAlready(
  client: StripeClient,
  paymentId: string,
  done: Stripe.PaymentIntent.Status,
  refusal: (status: Stripe.PaymentIntent.Status) => string,
): Promise<void> {
  const intent = await retrieveIntent(client, paymentId);
  if (intent.status === done) return;
  throw new AppError('failed_precondition', refusal(intent.status));
}

/** Voids a cart's authorisations Stripe still holds; resolves how many. */
async function voidAbandoned(
  client: StripeClient,
  processor: PaymentProcessor,
  cartId: string,
): Promise<number> {
  let found: Stripe.ApiSearchResult<Stripe.PaymentIntent>;
  try {
    // Search reads Stripe's index of the metadata, which trails a write by up to a minute:
    // callers ask only well after the cart ended.
    found = await client.paymentIntents.search({
      query: `metadata['marquee_cart']:'${cartId.replace(/[^A-Za-z0-9_-]/g, '')}'`,
      limit: 100,
    });
  } catch (error) {
    throw errorOf(error);
  }
  let voided = 0;
  for (const intent of found.data) {
    if (!VOIDABLE.has(intent.status)) continue;
    await processor.void(intent.id);
    voided += 1;
  }
  return voided;
}

/** Refunds a captured intent (all of it, or `amountMinor`); a refusal is FAILED_PRECONDITION. */
async function refund(
  client: StripeClient,
  paymentId: string,
  amountMinor: number | undefined,
  idempotencyKey: string,
): Promise<PaymentRefund> {
  let refund: Stripe.Refund;
  try {
    refund = await client.refunds.create(
      {
        payment_intent: paymentId,
        ...(amountMinor !== undefined ? { amount: amountMinor } : {}),
      },
      { idempotencyKey: `refund:${idempotencyKey}` },
    );
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError)
      throw new AppError(
        'failed_precondition',
        `payment ${paymentId} cannot be refunded (${error.code ?? 'refused'})`,
      );
    throw errorOf(error);
  }
  if (refund.status === 'failed' || refund.status === 'canceled')
    throw new AppError('failed_precondition', `the refund of ${paymentId} ${refund.status}`);
  return {
    refundId: refund.id,
    status: refund.status === 'succeeded' ? 'succeeded' : 'pending',
  };
}

/**
 * The Stripe payment processor (README, "Payment"; docs/payments.md). `authorize` creates and
 * confirms a PaymentIntent with manual capture for the PaymentMethod Stripe.js made in the
 * cardholder's browser; `capture` takes the money at commit; `void` cancels the intent; `refund`
 * refunds a captured one. Every call carries an idempotency key, so a retry or a crash between
 * steps never moves money twice.
 */
export function createStripeProcessor(client: StripeClient): PaymentProcessor {
  return {
    name: 'stripe',
    async authorize(input) {
      checkPaymentMethod(input.nonce);
      const created = await createIntent(client, input);
      return answerOf(await currentIntent(client, created, input.nonce));
    },

    async capture(paymentId, amountMinor) {
      try {
        await client.paymentIntents.capture(
          paymentId,
          { amount_to_capture: amountMinor },
          { idempotencyKey: captureKey(paymentId) },
        );
      } catch (error) {
        // Captured earlier (beyond the idempotency key's 24 hours): done.
        if (!unexpectedState(error)) throw errorOf(error);
        await settledAlready(
          client,
          paymentId,
          'succeeded',
          (status) => `payment ${paymentId} cannot be captured: it is ${status}`,
        );
      }
    },

    async void(paymentId) {
      try {
        await client.paymentIntents.cancel(paymentId, {}, { idempotencyKey: voidKey(paymentId) });
      } catch (error) {
        if (!unexpectedState(error)) throw errorOf(error);
        await settledAlready(
          client,
          paymentId,
          'canceled',
          (status) =>
            `payment ${paymentId} cannot be voided: it is ${status}${status === 'succeeded' ? ' (captured: refund it)' : ''}`,
        );
      }
    },

    voidAbandoned(cartId) {
      return voidAbandoned(client, this, cartId);
    },

    refund: (paymentId, amountMinor, idempotencyKey) =>
      refund(client, paymentId, amountMinor, idempotencyKey),
  };
}
