import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@marquee/platform/config';
import { describe, expect, it } from 'vitest';
import { createSandboxProcessor } from '../src/adapters/sandbox-processor.js';
import { loadCartConfig } from '../src/config.js';
import { paymentProcessorOf } from '../src/service.js';

const production = {
  NODE_ENV: 'production',
  CART_ORDER_TOKEN_KEY: Buffer.alloc(32, 7).toString('base64'),
  ORDER_CONTACT_KEYS: `k1:${Buffer.alloc(32, 9).toString('base64')}`,
};
const secretKey = 'sk_test_51Marquee0000000000000000';
const webhookSecret = 'whsec_marquee0000000000000000';

/** The problems a start with `env` is refused for, by variable. */
function refusal(env: Record<string, string>): Record<string, string> {
  try {
    loadCartConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return Object.fromEntries((error as ConfigError).issues.map((i) => [i.variable, i.message]));
  }
  throw new Error('the configuration was accepted');
}

describe('payment processor configuration', () => {
  it('production without Stripe refuses to start, naming everything missing', () => {
    expect(refusal(production)).toEqual({
      CART_PAYMENT_PROCESSOR:
        'must be stripe when NODE_ENV=production (the sandbox processor takes no money)',
      STRIPE_SECRET_KEY: 'is required when NODE_ENV=production (or STRIPE_SECRET_KEY_FILE)',
      STRIPE_WEBHOOK_SECRET: 'is required when NODE_ENV=production (or STRIPE_WEBHOOK_SECRET_FILE)',
    });
    expect(() => loadCartConfig(production)).toThrow(/CART_PAYMENT_PROCESSOR: must be stripe/);
    expect(refusal({ ...production, CART_PAYMENT_PROCESSOR: 'sandbox' })).toHaveProperty(
      'CART_PAYMENT_PROCESSOR',
    );
    expect(
      refusal({ ...production, CART_PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: secretKey }),
    ).toEqual({
      STRIPE_WEBHOOK_SECRET: 'is required when NODE_ENV=production (or STRIPE_WEBHOOK_SECRET_FILE)',
    });
  });

  it('production with Stripe and its secrets, from files too, starts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cart-stripe-'));
    writeFileSync(join(dir, 'key'), `${secretKey}\n`);
    writeFileSync(join(dir, 'whsec'), webhookSecret);
    const config = loadCartConfig({
      ...production,
      CART_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY_FILE: join(dir, 'key'),
      STRIPE_WEBHOOK_SECRET_FILE: join(dir, 'whsec'),
    });
    expect(config).toMatchObject({
      CART_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: secretKey,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
    });
  });

  it('refuses malformed secrets without echoing them, and plain http to Stripe in production', () => {
    const problems = refusal({
      ...production,
      CART_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'pk_test_publishable0000',
      STRIPE_WEBHOOK_SECRET: 'not-a-secret-value',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
    });
    expect(Object.keys(problems).sort()).toEqual([
      'STRIPE_API_BASE',
      'STRIPE_SECRET_KEY',
      'STRIPE_WEBHOOK_SECRET',
    ]);
    expect(JSON.stringify(problems)).not.toContain('pk_test_publishable0000');
    expect(JSON.stringify(problems)).not.toContain('not-a-secret-value');
  });

  it('a production test stack may opt into sandbox payments, explicitly', () => {
    const config = loadCartConfig({
      ...production,
      CART_PAYMENT_PROCESSOR: 'sandbox',
      CART_PRODUCTION_SANDBOX_PAYMENTS: 'true',
    });
    expect(config.CART_PAYMENT_PROCESSOR).toBe('sandbox');
  });

  it('production needs the contact key ring; a malformed one is refused without echoing it', () => {
    const { ORDER_CONTACT_KEYS: _ring, ...withoutRing } = production;
    expect(
      refusal({
        ...withoutRing,
        CART_PAYMENT_PROCESSOR: 'sandbox',
        CART_PRODUCTION_SANDBOX_PAYMENTS: 'true',
      }),
    ).toEqual({ ORDER_CONTACT_KEYS: 'is required when NODE_ENV=production' });
    const secret = Buffer.alloc(31, 5).toString('base64');
    const problems = refusal({ ORDER_CONTACT_KEYS: `k1:${secret}` });
    expect(Object.keys(problems)).toEqual(['ORDER_CONTACT_KEYS']);
    expect(JSON.stringify(problems)).not.toContain(secret);
  });

  it('development defaults to the sandbox, and Stripe there needs only its key', () => {
    expect(loadCartConfig({}).CART_PAYMENT_PROCESSOR).toBeUndefined();
    expect(refusal({ CART_PAYMENT_PROCESSOR: 'stripe' })).toEqual({
      STRIPE_SECRET_KEY:
        'is required with CART_PAYMENT_PROCESSOR=stripe (or STRIPE_SECRET_KEY_FILE)',
    });
    expect(
      loadCartConfig({
        CART_PAYMENT_PROCESSOR: 'stripe',
        STRIPE_SECRET_KEY: secretKey,
        STRIPE_API_BASE: 'http://127.0.0.1:12111',
      }),
    ).toMatchObject({
      CART_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
    });
  });

  it('wires the processor it names and never logs the key', () => {
    const sandbox = createSandboxProcessor({ timeoutMs: 5 });
    const lines: unknown[] = [];
    const log = {
      info: (fields: unknown, message: string) => lines.push([fields, message]),
      warn: (fields: unknown, message: string) => lines.push([fields, message]),
    };
    expect(paymentProcessorOf(loadCartConfig({}), sandbox, log)).toBe(sandbox);
    const stripe = paymentProcessorOf(
      loadCartConfig({ CART_PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: secretKey }),
      sandbox,
      log,
    );
    expect(stripe.name).toBe('stripe');
    expect(lines).toHaveLength(2);
    expect(JSON.stringify(lines)).toContain('"processor":"stripe"');
    expect(JSON.stringify(lines)).not.toContain(secretKey);
  });
});
