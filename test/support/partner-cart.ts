import { decimalNumberToMinor, toDecimalString } from '@marquee/platform/money';
import { waitFor } from '@marquee/platform/testing';
import type { Stack } from './stack.js';

/**
 * Calls of the partner cart API (`/partners/v1`, `/partners-preprod/v1`) through the edge, for the
 * cross-service tiers: a reserve polled until the cart is held, its release, e-ticket delivery,
 * payment of the unpaid total in the event's currency and commit, and the order read once
 * secure-entry has issued the tickets. A call whose answer is not the expected one throws with the
 * status and the body, so a test's own `expect`s stay on what the test is about.
 */

// Answers are read loosely: the unit tests pin their shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export const json = async (response: Response): Promise<Json> => {
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as Json;
};

/** An app's view of the partner cart: the edge and the app's key. */
export interface PartnerCartClient {
  sut: Pick<Stack, 'baseUrl'>;
  apiKey: string;
  /** `/partners/v1` (default) or `/partners-preprod/v1`. */
  prefix?: string;
}

/** One call with the app's key; `path` is below the prefix, or absolute when it starts so. */
export function partnerCall(
  client: PartnerCartClient,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const url = path.startsWith('/partners') ? path : `${client.prefix ?? '/partners/v1'}${path}`;
  return fetch(`${client.sut.baseUrl}${url}`, {
    method,
    headers: {
      'x-api-key': client.apiKey,
      ...(options.body ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(options.body ? { body: JSON.stringify(options.body) } : {}),
  });
}

async function expectStatus(response: Response, step: string, status = 200): Promise<Json> {
  const body = await json(response);
  if (response.status !== status)
    throw new Error(`${step} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/**
 * Reserves `tickets` (`id`: a ticket type or a resale listing id) and waits until the cart is
 * held: the cart result (`{cart_id, cart}`).
 */
export async function holdCart(
  client: PartnerCartClient,
  eventId: string,
  tickets: Array<{ id: string; quantity: number }>,
  headers: Record<string, string> = {},
): Promise<Json> {
  const reserved = await partnerCall(client, 'POST', `/events/${eventId}/cart`, {
    body: { reserve: { tickets } },
    headers,
  });
  if (reserved.status !== 202) return expectStatus(reserved, `the reserve of ${eventId}`);
  const pollingUrl = (await json(reserved)).polling_url as string;
  return waitFor(
    async () => {
      const polled = await partnerCall(client, 'GET', pollingUrl);
      return polled.status === 200 ? json(polled) : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 250, description: `the reserve of ${eventId} to complete` },
  );
}

/** Releases a cart (204). */
export async function releaseCart(
  client: PartnerCartClient,
  eventId: string,
  cartId: string,
): Promise<void> {
  const released = await partnerCall(
    client,
    'DELETE',
    `/events/${eventId}/cart?cart_id=${encodeURIComponent(cartId)}`,
  );
  await expectStatus(released, `the release of cart ${cartId}`, 204);
}

/** An amount the partner cart shows (a number in major units) as the decimal string a payment writes. */
export function decimalText(amount: number, currency: string): string {
  const minor = decimalNumberToMinor(amount, currency);
  if (minor === undefined) throw new Error(`${amount} is not an amount of ${currency}`);
  return toDecimalString(minor, currency);
}

/**
 * E-ticket delivery (the first shipping option), payment of the unpaid total with `card` for the
 * buyer `account`, and commit: the commit's answer (`order_id`, `order_token`, `grand_total`, ...).
 */
export async function payAndCommit(
  client: PartnerCartClient,
  eventId: string,
  cart: { cartId: string; currency: string; card: string; account: string },
): Promise<Json> {
  const { cartId, currency } = cart;
  const options = await expectStatus(
    await partnerCall(
      client,
      'GET',
      `/events/${eventId}/cart/shipping?cart_id=${encodeURIComponent(cartId)}`,
    ),
    'the shipping options',
  );
  const shipped = await expectStatus(
    await partnerCall(client, 'PUT', `/events/${eventId}/cart/shipping`, {
      body: { cart_id: cartId, shipping_id: options.shipping_options[0].id },
    }),
    'the choice of delivery',
  );
  await expectStatus(
    await partnerCall(client, 'PUT', `/events/${eventId}/cart/payment`, {
      body: {
        cartId,
        payment: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          type: 'CC',
          amount: decimalText(shipped.cart.totals.unpaid as number, currency),
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
    await partnerCall(client, 'PUT', `/events/${eventId}/cart`, { body: { cart_id: cartId } }),
    'the commit',
  );
}

/**
 * The order read (`POST {prefix}/orders?order_token=`) once secure-entry has issued the order's
 * tickets (it learns them from Kafka; until then the read answers 404 `90010`).
 */
export function readOrderWhenIssued(
  client: PartnerCartClient,
  orderToken: string,
  device: { account: string; deviceId: string },
): Promise<Json> {
  return waitFor(
    async () => {
      const answer = await partnerCall(
        client,
        'POST',
        `/orders?order_token=${encodeURIComponent(orderToken)}`,
        {
          body: {
            device_id: device.deviceId,
            device_type: 'native',
            device_os: 'ios',
            third_party_account_id: device.account,
          },
        },
      );
      const body = await json(answer);
      if (answer.status === 404 && body.error?.code === '90010') return undefined;
      if (answer.status !== 200)
        throw new Error(`the order read answered ${answer.status}: ${JSON.stringify(body)}`);
      return body;
    },
    { timeoutMs: 60_000, intervalMs: 300, description: 'the tickets issued by secure-entry' },
  );
}
