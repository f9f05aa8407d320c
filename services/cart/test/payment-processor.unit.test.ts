import { describe, expect, it } from 'vitest';
import { metricValue } from '@marquee/platform/testing';
import { meteredProcessor } from '../src/adapters/metered-processor.js';
import { createSandboxProcessor } from '../src/adapters/sandbox-processor.js';
import type { PaymentProcessor } from '../src/app/ports.js';
import {
  authorizeKey,
  createStripeClient,
  createStripeProcessor,
  STRIPE_API_VERSION,
} from '../src/adapters/stripe-processor.js';
import { paymentProcessorContract, type ProcessorHarness } from './payment-processor-contract.js';
import { FakeStripe } from './support/stripe-fake.js';

const sandboxCase = (processor: PaymentProcessor): ProcessorHarness => ({
  processor,
  approved: 'fake-valid-nonce',
  declines: [
    { nonce: 'fake-processor-declined-nonce', kind: 'failed_precondition', reason: '20122' },
    { nonce: 'fake-insufficient-funds-nonce', kind: 'failed_precondition', reason: '20129' },
    { nonce: 'fake-cvv-mismatch-nonce', kind: 'failed_precondition', reason: '20152' },
    { nonce: 'fake-processor-timeout-nonce', kind: 'unavailable', reason: '20001' },
  ],
  // A Stripe PaymentMethod means nothing to the sandbox: declined like any unknown nonce.
  foreign: { nonce: 'pm_card_visa', kind: 'failed_precondition', reason: '20122' },
  stateful: true,
});

paymentProcessorContract('sandbox', () => sandboxCase(createSandboxProcessor({ timeoutMs: 5 })));
// Counting outcomes changes nothing a use case sees.
paymentProcessorContract('sandbox, metered', () =>
  sandboxCase(meteredProcessor(createSandboxProcessor({ timeoutMs: 5 }))),
);

describe('meteredProcessor', () => {
  const series = (operation: string, outcome: string) =>
    `marquee_payments_total{processor="sandbox",operation="${operation}",outcome="${outcome}"}`;
  const count = async (operation: string, outcome: string) =>
    (await metricValue(series(operation, outcome))) ?? 0;
  const input = (nonce: string) => ({
    reference: `metered-${nonce}`,
    cartId: `cart-${nonce}`,
    amountMinor: 1_000,
    currency: 'EUR',
    nonce,
    cin: '123',
    expireMonth: 12,
    expireYear: 2031,
  });

  it('counts payments by operation and outcome', async () => {
    const processor = meteredProcessor(createSandboxProcessor({ timeoutMs: 5 }));
    const before = {
      authorized: await count('authorize', 'ok'),
      declined: await count('authorize', 'declined'),
      error: await count('authorize', 'error'),
      captured: await count('capture', 'ok'),
    };
    const approved = await processor.authorize(input('fake-valid-nonce'));
    if (approved.status !== 'authorized') throw new Error('expected an authorisation');
    await expect(processor.authorize(input('fake-insufficient-funds-nonce'))).rejects.toThrow();
    await expect(processor.authorize(input('fake-processor-timeout-nonce'))).rejects.toThrow();
    await processor.capture(approved.paymentId, 1_000, 'EUR');
    expect(await count('authorize', 'ok')).toBe(before.authorized + 1);
    expect(await count('authorize', 'declined')).toBe(before.declined + 1);
    expect(await count('authorize', 'error')).toBe(before.error + 1);
    expect(await count('capture', 'ok')).toBe(before.captured + 1);
  });
});

paymentProcessorContract('stripe over an in-memory fake', () => {
  const stripe = new FakeStripe();
  return {
    processor: createStripeProcessor(stripe),
    approved: 'pm_card_visa',
    declines: [
      { nonce: 'pm_card_chargeDeclined', kind: 'failed_precondition', reason: '20122' },
      {
        nonce: 'pm_card_visa_chargeDeclinedInsufficientFunds',
        kind: 'failed_precondition',
        reason: '20129',
      },
      { nonce: 'pm_card_chargeDeclinedIncorrectCvc', kind: 'failed_precondition', reason: '20152' },
      { nonce: 'pm_card_chargeDeclinedExpiredCard', kind: 'failed_precondition', reason: '20122' },
      {
        nonce: 'pm_card_chargeDeclinedAuthenticationRequired',
        kind: 'failed_precondition',
        reason: '20122',
      },
      { nonce: 'pm_card_chargeDeclinedProcessingError', kind: 'unavailable', reason: '20001' },
    ],
    // The sandbox's test nonce never buys anything with money.
    foreign: { nonce: 'fake-valid-nonce', kind: 'invalid_argument', reason: '10002' },
    keysReceived: () => stripe.keys(),
    state: (id) => stripe.state(id),
    stateful: true,
  };
});

describe('Stripe processor (over the in-memory fake)', () => {
  const input = (reference: string, nonce = 'pm_card_visa') => ({
    reference,
    cartId: reference.split(':')[0]!,
    amountMinor: 5_900,
    currency: 'EUR',
    nonce,
    cin: '123',
    expireMonth: 12,
    expireYear: 2031,
  });

  it('pins the API version the SDK types describe', () => {
    expect(STRIPE_API_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}\.\w+$/);
    const stripe = createStripeClient({ secretKey: 'sk_test_x', timeoutMs: 1_000 });
    expect(stripe.getApiField('version')).toBe(STRIPE_API_VERSION);
  });

  it('points the SDK at STRIPE_API_BASE: host, port (or the protocol default), protocol', () => {
    const api = (apiBase: string) => {
      const stripe = createStripeClient({ secretKey: 'sk_test_x', apiBase, timeoutMs: 1_000 });
      return [
        stripe.getApiField('host'),
        String(stripe.getApiField('port')),
        stripe.getApiField('protocol'),
      ];
    };
    expect(api('http://127.0.0.1:12111')).toEqual(['127.0.0.1', '12111', 'http']);
    expect(api('https://stripe.internal.example')).toEqual([
      'stripe.internal.example',
      '443',
      'https',
    ]);
    const stripe = createStripeClient({ secretKey: 'sk_test_x', timeoutMs: 1_000 });
    expect(stripe.getApiField('host')).toBe('api.stripe.com');
    expect(stripe.getApiField('maxNetworkRetries')).toBe(0);
  });

  it('creates one confirmed manual-capture intent in minor units, lower-case currency, no CVC', async () => {
    const stripe = new FakeStripe();
    const answer = await createStripeProcessor(stripe).authorize(input('cart-1:4'));
    expect(answer).toEqual({
      status: 'authorized',
      paymentId: 'pi_fake_1',
      issuer: 'VISA',
      last4: '4242',
    });
    expect(stripe.requests).toHaveLength(1);
    const [request] = stripe.requests;
    expect(request!.call).toBe('paymentIntents.create');
    expect(request!.idempotencyKey).toBe(authorizeKey('cart-1:4', 'pm_card_visa'));
    expect(request!.idempotencyKey).not.toContain('pm_card_visa');
    const [params] = request!.args as [Record<string, unknown>];
    expect(params).toMatchObject({
      amount: 5_900,
      currency: 'eur',
      payment_method: 'pm_card_visa',
      capture_method: 'manual',
      confirm: true,
      metadata: { marquee_reference: 'cart-1:4', marquee_cart: 'cart-1' },
    });
    expect(JSON.stringify(params)).not.toContain('123');
  });

  it('another card for the same cart version is another intent (a new key)', async () => {
    const stripe = new FakeStripe();
    const processor = createStripeProcessor(stripe);
    await expect(
      processor.authorize(input('cart-1:4', 'pm_card_chargeDeclined')),
    ).rejects.toThrow();
    await expect(processor.authorize(input('cart-1:4'))).resolves.toMatchObject({
      status: 'authorized',
    });
    const [declined, approved] = stripe.keys('paymentIntents.create');
    expect(declined).not.toBe(approved);
  });

  it('answers 3-D Secure with the client secret, and the retry after it with the authorisation', async () => {
    const stripe = new FakeStripe();
    const processor = createStripeProcessor(stripe);
    const first = await processor.authorize(input('cart-2:1', 'pm_card_authenticationRequired'));
    expect(first).toEqual({
      status: 'requires_action',
      paymentId: 'pi_fake_1',
      clientSecret: 'pi_fake_1_secret_fake',
      nextActionType: 'use_stripe_sdk',
    });
    // Not yet authenticated: the retry still asks for the action.
    await expect(
      processor.authorize(input('cart-2:1', 'pm_card_authenticationRequired')),
    ).resolves.toMatchObject({ status: 'requires_action' });
    stripe.authenticate('pi_fake_1', true);
    await expect(
      processor.authorize(input('cart-2:1', 'pm_card_authenticationRequired')),
    ).resolves.toEqual({
      status: 'authorized',
      paymentId: 'pi_fake_1',
      issuer: 'VISA',
      last4: '3184',
    });
    expect(stripe.intents.size).toBe(1);
  });

  it('a retry after a failed 3-D Secure asks for it again, on the same intent', async () => {
    const stripe = new FakeStripe();
    const processor = createStripeProcessor(stripe);
    await processor.authorize(input('cart-3:1', 'pm_card_authenticationRequired'));
    stripe.authenticate('pi_fake_1', false);
    await expect(
      processor.authorize(input('cart-3:1', 'pm_card_authenticationRequired')),
    ).resolves.toMatchObject({ status: 'requires_action', paymentId: 'pi_fake_1' });
    // Each answer of requires_action is read again (it may be a replay); the failed one is
    // confirmed again, which asks for a new challenge.
    expect(stripe.requests.map((r) => r.call)).toEqual([
      'paymentIntents.create',
      'paymentIntents.retrieve',
      'paymentIntents.create',
      'paymentIntents.retrieve',
      'paymentIntents.confirm',
    ]);
    stripe.authenticate('pi_fake_1', true);
    await expect(
      processor.authorize(input('cart-3:1', 'pm_card_authenticationRequired')),
    ).resolves.toMatchObject({ status: 'authorized', paymentId: 'pi_fake_1' });
    expect(stripe.intents.size).toBe(1);
  });

  it('a retry after processor trouble asks the bank again (Stripe replays the failure for the key)', async () => {
    const stripe = new FakeStripe();
    const processor = createStripeProcessor(stripe);
    await expect(
      processor.authorize(input('cart-10:1', 'pm_card_processingErrorOnce')),
    ).rejects.toMatchObject({ kind: 'unavailable', details: { reason: '20001' } });
    await expect(
      processor.authorize(input('cart-10:1', 'pm_card_processingErrorOnce')),
    ).resolves.toMatchObject({ status: 'authorized', paymentId: 'pi_fake_1' });
    expect(stripe.keys('paymentIntents.create')).toEqual([
      authorizeKey('cart-10:1', 'pm_card_processingErrorOnce'),
      authorizeKey('cart-10:1', 'pm_card_processingErrorOnce'),
    ]);
    expect(stripe.keys('paymentIntents.confirm')).toHaveLength(1);
    expect(stripe.intents.size).toBe(1);
  });

  it('a retried decline asks the bank again and answers its decline', async () => {
    const stripe = new FakeStripe();
    const processor = createStripeProcessor(stripe);
    const nonce = 'pm_card_visa_chargeDeclinedInsufficientFunds';
    for (let i = 0; i < 2; i++)
      await expect(processor.authorize(input('cart-11:1', nonce))).rejects.toMatchObject({
        details: { reason: '20129' },
      });
    expect(stripe.requests.map((r) => r.call)).toEqual([
      'paymentIntents.create',
      'paymentIntents.create',
      'paymentIntents.retrieve',
      'paymentIntents.confirm',
    ]);
  });

  it('a PaymentMethod Stripe does not know is invalid input on card.number', async () => {
    const processor = createStripeProcessor(new FakeStripe());
    await expect(processor.authorize(input('cart-4:1', 'pm_unknown'))).rejects.toMatchObject({
      kind: 'invalid_argument',
      details: { reason: '10002', field: 'card.number' },
    });
  });

  it('Stripe out of reach is UNAVAILABLE 20001 (not taken)', async () => {
    const stripe = new FakeStripe();
    stripe.outage = true;
    await expect(createStripeProcessor(stripe).authorize(input('cart-5:1'))).rejects.toMatchObject({
      kind: 'unavailable',
      details: { reason: '20001' },
    });
  });

  it('captures with the payment id as key; a capture after a void, or a void after a capture, is refused', async () => {
    const stripe = new FakeStripe();
    const processor = createStripeProcessor(stripe);
    const a = await processor.authorize(input('cart-6:1'));
    const b = await processor.authorize(input('cart-7:1'));
    await processor.capture(a.paymentId, 5_900, 'EUR');
    expect(stripe.intents.get(a.paymentId)).toMatchObject({ amount_received: 5_900 });
    expect(stripe.keys('paymentIntents.capture')).toEqual([`capture:${a.paymentId}`]);
    await expect(processor.void(a.paymentId)).rejects.toMatchObject({
      kind: 'failed_precondition',
      message: expect.stringContaining('refund it'),
    });
    await processor.void(b.paymentId);
    expect(stripe.keys('paymentIntents.cancel')).toContain(`void:${b.paymentId}`);
    await expect(processor.capture(b.paymentId, 5_900, 'EUR')).rejects.toMatchObject({
      kind: 'failed_precondition',
    });
  });

  it('a capture whose key Stripe no longer remembers finds the intent captured', async () => {
    const stripe = new FakeStripe();
    const processor = createStripeProcessor(stripe);
    const a = await processor.authorize(input('cart-8:1'));
    await processor.capture(a.paymentId, 5_900, 'EUR');
    // As after the key's 24 hours: the capture request meets a captured intent.
    await expect(
      stripe.paymentIntents.capture(a.paymentId, { amount_to_capture: 5_900 }),
    ).rejects.toMatchObject({ code: 'payment_intent_unexpected_state' });
    await expect(processor.capture(a.paymentId, 5_900, 'EUR')).resolves.toBeUndefined();
  });

  it('a refund beyond what was captured, or of an uncaptured payment, is refused', async () => {
    const stripe = new FakeStripe();
    const processor = createStripeProcessor(stripe);
    const a = await processor.authorize(input('cart-9:1'));
    await expect(processor.refund(a.paymentId, undefined, 'r0')).rejects.toMatchObject({
      kind: 'failed_precondition',
    });
    await processor.capture(a.paymentId, 5_900, 'EUR');
    await processor.refund(a.paymentId, 5_000, 'r1');
    await expect(processor.refund(a.paymentId, 1_000, 'r2')).rejects.toMatchObject({
      kind: 'failed_precondition',
    });
    expect(stripe.keys('refunds.create')).toEqual(['refund:r0', 'refund:r1', 'refund:r2']);
  });
});
