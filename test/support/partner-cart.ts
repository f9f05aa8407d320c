import { decimalNumberToMinor, toDecimalString } from '@marquee/platform/money';
import { describeError, type paths } from '@marquee/api-client';
import { waitFor } from '@marquee/platform/testing';
import { appApi } from './api.js';
import type { Stack } from './stack.js';

/**
 * Calls of the partner cart API (`/partners/v1`, `/partners-preprod/v1`) through the edge, for the
 * cross-service tiers: a reserve polled until the cart is held, its release, e-ticket delivery,
 * payment of the unpaid total in the event's currency and commit, and the order read once
 * secure-entry has issued the tickets. A call whose answer is not the expected one throws with the
 * status and the body, so a test's own `expect`s stay on what the test is about. The calls go
 * through `@marquee/api-client` (typed from the OpenAPI document), with the app's key as `apikey`.
 */

// Answers are read loosely: the unit tests pin their shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export const json = async (response: Response): Promise<Json> => {
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as Json;
};

/** The ISO 4217 codes a partner cart payment accepts, as the document lists them. */
type PaymentCurrency = NonNullable<
  paths['/partners/v1/events/{event_id}/cart/payment']['put']['requestBody']
>['content']['application/json']['payment']['currency'];

/** An app's view of the partner cart: the edge and the app's key. */
export interface PartnerCartClient {
  sut: Pick<Stack, 'baseUrl'>;
  apiKey: string;
  /** `/partners/v1` (default) or `/partners-preprod/v1`. */
  prefix?: '/partners/v1' | '/partners-preprod/v1';
}

/** The app's typed client (`@marquee/api-client`) and the prefix its calls use. */
function apiOf(client: PartnerCartClient) {
  return { api: appApi(client.sut, client.apiKey), prefix: client.prefix ?? '/partners/v1' };
}

/** The answer's data, or an error naming the step with the status and the body. */
function expectStatus<T>(
  answer: { data?: T; error?: unknown; response: Response },
  step: string,
  status = 200,
): T {
  if (answer.response.status !== status)
    throw new Error(
      `${step} answered ${answer.response.status}: ${JSON.stringify(answer.error ?? answer.data)}`,
    );
  return answer.data as T;
}

/**
 * Reserves `tickets` (`id`: a ticket type or a resale listing id) and waits until the cart is
 * held: the cart result (`{cart_id, cart}`). `headers` are the reserve's documented headers
 * (`x-platform-session-sid` of a resale fan session, `idempotency-key`, `prefer`).
 */
export async function holdCart(
  client: PartnerCartClient,
  eventId: string,
  tickets: Array<{ id: string; quantity: number }>,
  headers: {
    'idempotency-key'?: string;
    prefer?: string;
    'x-platform-session-sid'?: string;
  } = {},
): Promise<Json> {
  const { api, prefix } = apiOf(client);
  const cartPath = `${prefix}/events/{event_id}/cart` as const;
  const reserved = await api.POST(cartPath, {
    params: { path: { event_id: eventId }, header: headers },
    body: { reserve: { tickets } },
  });
  if (reserved.response.status !== 202) return expectStatus(reserved, `the reserve of ${eventId}`);
  const data = reserved.data as { cart_id: string; polling_url: string };
  // The polling URL is the cart's own GET, with its cart_id.
  const cartId = new URL(data.polling_url, client.sut.baseUrl).searchParams.get('cart_id')!;
  return waitFor(
    async () => {
      const polled = await api.GET(cartPath, {
        params: { path: { event_id: eventId }, query: { cart_id: cartId } },
      });
      return polled.response.status === 200 ? (polled.data as Json) : undefined;
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
  const { api, prefix } = apiOf(client);
  const released = await api.DELETE(`${prefix}/events/{event_id}/cart`, {
    params: { path: { event_id: eventId }, query: { cart_id: cartId } },
  });
  expectStatus(released, `the release of cart ${cartId}`, 204);
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
  const { api, prefix } = apiOf(client);
  const path = { path: { event_id: eventId } };
  const options = expectStatus(
    await api.GET(`${prefix}/events/{event_id}/cart/shipping`, {
      params: { ...path, query: { cart_id: cartId } },
    }),
    'the shipping options',
  );
  const shipped = expectStatus(
    await api.PUT(`${prefix}/events/{event_id}/cart/shipping`, {
      params: path,
      body: { cart_id: cartId, shipping_id: options.shipping_options[0]!.id },
    }),
    'the choice of delivery',
  );
  expectStatus(
    await api.PUT(`${prefix}/events/{event_id}/cart/payment`, {
      params: path,
      body: {
        cartId,
        payment: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          type: 'CC',
          amount: decimalText(shipped.cart.totals.unpaid, currency),
          currency: currency as PaymentCurrency,
          card: { number: cart.card, cin: '123', expire_month: 12, expire_year: 2031 },
          email_address: `${cart.account}@example.com`,
          third_party_account_id: cart.account,
        },
      },
    }),
    'the payment',
  );
  return expectStatus(
    await api.PUT(`${prefix}/events/{event_id}/cart`, {
      params: path,
      body: { cart_id: cartId },
    }),
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
  const { api, prefix } = apiOf(client);
  return waitFor(
    async () => {
      const answer = await api.POST(`${prefix}/orders`, {
        params: { query: { order_token: orderToken } },
        body: {
          device_id: device.deviceId,
          device_type: 'native',
          device_os: 'ios',
          third_party_account_id: device.account,
        },
      });
      if (answer.response.status === 404 && describeError(answer.error).code === '90010')
        return undefined;
      return expectStatus(answer, 'the order read') as Json;
    },
    { timeoutMs: 60_000, intervalMs: 300, description: 'the tickets issued by secure-entry' },
  );
}
