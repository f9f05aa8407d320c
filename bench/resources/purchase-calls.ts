/**
 * The resources benchmark's plain calls of the partner cart (fetch with the app's key), for the
 * steps after a reserve: delivery, payment and commit, and the order read. The e2e tier makes the
 * same calls through `@marquee/api-client`; the benchmark runs under plain `node`, which loads the
 * workspace's TypeScript sources only when imported by path, so it keeps these few calls here.
 */
import { decimalNumberToMinor, toDecimalString } from '@marquee/platform/money';

// Answers are read loosely: the unit and e2e tiers pin their shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

/** The edge and the app's key. */
export interface PartnerClient {
  sut: { baseUrl: string };
  apiKey: string;
}

/** One call of `/partners/v1` with the app's key; `path` is below the prefix. */
export function partnerCall(
  client: PartnerClient,
  method: string,
  path: string,
  options: { body?: unknown } = {},
): Promise<Response> {
  return fetch(`${client.sut.baseUrl}/partners/v1${path}`, {
    method,
    headers: {
      'x-api-key': client.apiKey,
      ...(options.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(options.body ? { body: JSON.stringify(options.body) } : {}),
  });
}

export const json = async (response: Response): Promise<Json> => {
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as Json;
};

async function expectStatus(response: Response, step: string): Promise<Json> {
  const body = await json(response);
  if (response.status !== 200)
    throw new Error(`${step} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/**
 * E-ticket delivery (the first shipping option), payment of the unpaid total with `card` for the
 * buyer `account`, and commit: the commit's answer (`order_id`, `order_token`, ...).
 */
export async function payAndCommit(
  client: PartnerClient,
  eventId: string,
  cart: { cartId: string; currency: string; card: string; account: string },
): Promise<Json> {
  const { cartId, currency } = cart;
  const cartPath = `/events/${eventId}/cart`;
  const options = await expectStatus(
    await partnerCall(client, 'GET', `${cartPath}/shipping?cart_id=${encodeURIComponent(cartId)}`),
    'the shipping options',
  );
  const shipped = await expectStatus(
    await partnerCall(client, 'PUT', `${cartPath}/shipping`, {
      body: { cart_id: cartId, shipping_id: options.shipping_options[0].id },
    }),
    'the choice of delivery',
  );
  const unpaid = decimalNumberToMinor(shipped.cart.totals.unpaid as number, currency);
  if (unpaid === undefined) throw new Error(`the unpaid total is not an amount of ${currency}`);
  await expectStatus(
    await partnerCall(client, 'PUT', `${cartPath}/payment`, {
      body: {
        cartId,
        payment: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          type: 'CC',
          amount: toDecimalString(unpaid, currency),
          currency,
          card: { number: cart.card, cin: '123', expire_month: 12, expire_year: 2031 },
          email_address: `${cart.account}@example.com`,
          third_party_account_id: cart.account,
        },
      },
    }),
    'the payment',
  );
  return expectStatus(
    await partnerCall(client, 'PUT', cartPath, { body: { cart_id: cartId } }),
    'the commit',
  );
}
