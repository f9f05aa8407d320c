import { isKnownCurrency, parseDecimal } from '@marquee/platform/money';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Billing } from '../../../app/partner-cart.js';
import { PAID_CART_EXAMPLE } from './examples.js';
import { CART_ID_RULE, InvalidInput, type Params, type PartnerCartContext } from './context.js';
import {
  CartResult,
  EventParams,
  IdempotencyHeaders,
  OptionalCartIdQuery,
  PaymentBody,
  errorResponses,
} from './schemas.js';

/** `PUT /events/{event_id}/cart/payment`: billing and the payment's authorisation. */
export function paymentRoutes(scope: FastifyInstance, context: PartnerCartContext): void {
  const { cart, tags, summary, callerOf } = context;
  scope.put(
    '/events/:event_id/cart/payment',
    {
      schema: {
        tags,
        summary: summary('Add billing and authorise the payment; answers the cart'),
        description:
          '`payment.amount` is a decimal string in `payment.currency`, with no more decimals than ' +
          'the currency has, and must equal the unpaid total; `payment.card` is required when ' +
          '`payment.type` is `CC` (any case). `payment.card.number` is the payment nonce; it and ' +
          `\`cin\` are never stored or logged. ${CART_ID_RULE.replace('cart_id', 'cartId')}`,
        params: EventParams,
        querystring: OptionalCartIdQuery,
        headers: IdempotencyHeaders,
        body: PaymentBody,
        response: {
          200: { ...CartResult, examples: [PAID_CART_EXAMPLE] },
          ...errorResponses(402, 403, 404, 409, 413, 415, 422, 502),
        },
      },
    },
    async (request, reply) => {
      const { event_id } = request.params as Params;
      const body = request.body as Static<typeof PaymentBody>;
      const query = request.query as Static<typeof OptionalCartIdQuery>;
      const record = await cart.addPayment(callerOf(request), {
        eventId: event_id,
        cartId: context.cartIdOf(body.cartId, query.cart_id),
        idempotencyKey:
          (request.headers as Static<typeof IdempotencyHeaders>)['idempotency-key'] ?? '',
        billing: toBilling(body.payment),
      });
      return context.answerCart(reply, event_id, { cart: record, pollAfterSeconds: 0 });
    },
  );
}

function toBilling(p: Static<typeof PaymentBody>['payment']): Billing {
  const currency = p.currency.toUpperCase();
  if (!isKnownCurrency(currency))
    throw new InvalidInput(`payment.currency ${currency} is not an ISO 4217 currency`);
  const amountMinor = parseDecimal(p.amount, currency);
  if (amountMinor === undefined) {
    throw new InvalidInput(`payment.amount has more decimals than ${currency} allows`);
  }
  if (p.type.toUpperCase() === 'CC' && p.card === undefined) {
    throw new InvalidInput('payment.card is required for type CC');
  }
  const year = p.card?.expire_year === undefined ? 0 : Number(p.card.expire_year);
  const a = p.address;
  return {
    firstName: p.first_name,
    lastName: p.last_name,
    homePhone: p.home_phone ?? '',
    type: p.type,
    reference: p.reference ?? '',
    ...(a
      ? {
          address: {
            line1: a.line1 ?? '',
            line2: a.line2 ?? '',
            unit: a.unit ?? '',
            city: a.city ?? '',
            countryCode: (a.country?.code ?? '').toUpperCase(),
            countryId: a.country?.id === undefined ? '' : String(a.country.id),
            region: a.region?.abbrev ?? '',
            postalCode: a.postal_code ?? '',
          },
        }
      : {}),
    amount: { amountMinor, currency },
    cardNonce: p.card?.number ?? '',
    cin: p.card?.cin ?? '',
    expireMonth: p.card?.expire_month === undefined ? 0 : Number(p.card.expire_month),
    expireYear: year > 0 && year < 100 ? 2000 + year : year,
    emailAddress: p.email_address,
    thirdPartyAccountId: p.third_party_account_id ?? '',
  };
}
