import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PaymentProcessor } from '../src/app/ports.js';

/** A nonce and what the processor must answer for it. */
export interface RefusedNonce {
  nonce: string;
  kind: 'failed_precondition' | 'invalid_argument' | 'unavailable';
  /** The partner cart code in `details.reason`. */
  reason: string;
}

export interface ProcessorHarness {
  processor: PaymentProcessor;
  /** A nonce the processor authorises. */
  approved: string;
  /** Declines and processor trouble the processor must map to the partner cart's codes. */
  declines: RefusedNonce[];
  /** A nonce of another processor's kind, which this one must refuse. */
  foreign: RefusedNonce;
  /**
   * The idempotency keys the processor's server received, in order; `undefined` for a processor
   * that has no server (the sandbox).
   */
  keysReceived?: () => (string | undefined)[];
  /**
   * Whether the server keeps state. stripe-mock does not: it validates each request against
   * Stripe's OpenAPI and answers a fixture, so outcomes that need state are only asserted on
   * stateful servers, and a stateless one is checked on its requests instead.
   */
  stateful: boolean;
  /** A payment id the stateless server accepts for capture, void and refund. */
  anyPaymentId?: string;
  /** Where the payment is, as the processor's server says; `undefined` when it keeps none. */
  state?: (paymentId: string) => 'authorized' | 'captured' | 'voided' | 'other';
}

const payment = (reference: string, nonce: string, amountMinor = 5_900) => ({
  reference,
  cartId: reference.split(':')[0]!,
  amountMinor,
  currency: 'EUR',
  nonce,
  cin: '123',
  expireMonth: 12,
  expireYear: 2031,
});

/**
 * What every PaymentProcessor must do, whatever moves the money (README, "Payment"). Run by the
 * sandbox, the Stripe adapter over an in-memory fake (unit) and over stripe-mock (integration).
 */
export function paymentProcessorContract(
  name: string,
  setup: () => ProcessorHarness | Promise<ProcessorHarness>,
): void {
  describe(`PaymentProcessor contract: ${name}`, () => {
    const reference = () => `${randomUUID()}:3`;

    it('authorises, then captures once however often commit retries the capture', async (ctx) => {
      const h = await setup();
      if (!h.stateful) return ctx.skip('needs a server with state (stripe-mock answers fixtures)');
      const authorization = await h.processor.authorize(payment(reference(), h.approved));
      expect(authorization).toMatchObject({ status: 'authorized' });
      if (authorization.status !== 'authorized') return;
      expect(authorization.paymentId).not.toBe('');
      expect(authorization.issuer).toMatch(/^[A-Z]+$/);
      expect(authorization.last4).toMatch(/^\d{4}$/);
      expect(h.state?.(authorization.paymentId) ?? 'authorized').toBe('authorized');
      await expect(h.processor.capture(authorization.paymentId, 5_900, 'EUR')).resolves.toBe(
        undefined,
      );
      await expect(h.processor.capture(authorization.paymentId, 5_900, 'EUR')).resolves.toBe(
        undefined,
      );
      expect(h.state?.(authorization.paymentId) ?? 'captured').toBe('captured');
    });

    it('authorises, then voids, and a second void is fine', async (ctx) => {
      const h = await setup();
      if (!h.stateful) return ctx.skip('needs a server with state (stripe-mock answers fixtures)');
      const authorization = await h.processor.authorize(payment(reference(), h.approved));
      if (authorization.status !== 'authorized') throw new Error('not authorised');
      await expect(h.processor.void(authorization.paymentId)).resolves.toBe(undefined);
      await expect(h.processor.void(authorization.paymentId)).resolves.toBe(undefined);
      expect(h.state?.(authorization.paymentId) ?? 'voided').toBe('voided');
    });

    it("voids what is left of a cart's payments, never a captured one, idempotently", async () => {
      const h = await setup();
      const cart = randomUUID();
      if (!h.stateful) {
        // stripe-mock: the search and the cancels of its fixture are valid requests.
        await expect(h.processor.voidAbandoned(cart)).resolves.toBeGreaterThanOrEqual(0);
        return;
      }
      const left = await h.processor.authorize(payment(`${cart}:1`, h.approved));
      const paid = await h.processor.authorize(payment(`${cart}:2`, h.approved));
      if (left.status !== 'authorized' || paid.status !== 'authorized')
        throw new Error('not authorised');
      await h.processor.capture(paid.paymentId, 5_900, 'EUR');
      const other = await h.processor.authorize(payment(`${randomUUID()}:1`, h.approved));
      if (other.status !== 'authorized') throw new Error('not authorised');
      // A processor with state holds money and voids the one left; the sandbox holds none.
      const holdsMoney = h.state !== undefined;
      expect(await h.processor.voidAbandoned(cart)).toBe(holdsMoney ? 1 : 0);
      expect(await h.processor.voidAbandoned(cart)).toBe(0);
      if (!h.state) return;
      expect(h.state(left.paymentId)).toBe('voided');
      expect(h.state(paid.paymentId)).toBe('captured');
      expect(h.state(other.paymentId)).toBe('authorized');
    });

    it('answers a retried authorisation with the same payment and the same idempotency key', async () => {
      const h = await setup();
      const ref = reference();
      const before = h.keysReceived?.().length ?? 0;
      const outcome = async () =>
        h.processor.authorize(payment(ref, h.approved)).then(
          (answer) => ({ answer }),
          (error: unknown) => ({ error }),
        );
      const first = await outcome();
      const second = await outcome();
      if (h.stateful) {
        expect(first).toMatchObject({ answer: { status: 'authorized' } });
        expect(second).toEqual(first);
      } else {
        // stripe-mock: the request passed its OpenAPI validation (a refused one is `internal`),
        // whatever the fixture it answered means.
        for (const o of [first, second])
          if ('error' in o) expect(o.error).not.toMatchObject({ kind: 'internal' });
      }
      if (h.keysReceived) {
        const keys = h.keysReceived().slice(before);
        expect(keys.length).toBeGreaterThanOrEqual(2);
        expect(keys[0]).toContain(ref);
        expect(keys.filter((k) => k === keys[0]).length).toBeGreaterThanOrEqual(2);
      }
    });

    it('maps declines and processor trouble to the partner cart codes', async (ctx) => {
      const h = await setup();
      if (h.declines.length === 0) return ctx.skip('the server cannot be made to decline');
      for (const decline of h.declines) {
        await expect(
          h.processor.authorize(payment(reference(), decline.nonce)),
          decline.nonce,
        ).rejects.toMatchObject({ kind: decline.kind, details: { reason: decline.reason } });
      }
    });

    it("refuses another processor's nonce", async () => {
      const h = await setup();
      const before = h.keysReceived?.().length ?? 0;
      await expect(
        h.processor.authorize(payment(reference(), h.foreign.nonce)),
      ).rejects.toMatchObject({ kind: h.foreign.kind, details: { reason: h.foreign.reason } });
      if (h.keysReceived && h.foreign.kind === 'invalid_argument')
        expect(h.keysReceived().length, 'refused before any request').toBe(before);
    });

    it('refunds a captured payment once per idempotency key, in parts', async (ctx) => {
      const h = await setup();
      if (!h.stateful) return ctx.skip('needs a server with state (stripe-mock answers fixtures)');
      const authorization = await h.processor.authorize(payment(reference(), h.approved));
      if (authorization.status !== 'authorized') throw new Error('not authorised');
      await h.processor.capture(authorization.paymentId, 5_900, 'EUR');
      const part = await h.processor.refund(authorization.paymentId, 2_500, 'order-1:ticket-1');
      expect(part.refundId).not.toBe('');
      expect(part.status).toBe('succeeded');
      expect(await h.processor.refund(authorization.paymentId, 2_500, 'order-1:ticket-1')).toEqual(
        part,
      );
      const rest = await h.processor.refund(authorization.paymentId, undefined, 'order-1:rest');
      expect(rest.refundId).not.toBe(part.refundId);
    });

    it('sends capture, void and refund with their idempotency keys', async (ctx) => {
      const h = await setup();
      if (h.stateful || !h.anyPaymentId || !h.keysReceived)
        return ctx.skip('checked on the requests of a stateless server');
      const id = h.anyPaymentId;
      const before = h.keysReceived().length;
      await h.processor.capture(id, 5_900, 'EUR');
      await h.processor.void(id);
      const refund = await h.processor.refund(id, 1_000, 'order-1:ticket-1');
      expect(refund.refundId).toMatch(/^re_/);
      expect(h.keysReceived().slice(before)).toEqual([
        `capture:${id}`,
        `void:${id}`,
        'refund:order-1:ticket-1',
      ]);
    });
  });
}
