import { describe, expect, it } from 'vitest';
import {
  createMarqueeClient,
  describeError,
  MarqueeApiError,
  newIdempotencyKey,
  operations,
  rateLimitOf,
  unwrap,
  type MarqueeClientOptions,
} from '../src/index.js';

interface Seen {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: unknown;
}

function harness(
  options: Partial<MarqueeClientOptions> = {},
  answer: () => Response = () => Response.json({ ok: true }),
) {
  const seen: Seen[] = [];
  const api = createMarqueeClient({
    baseUrl: 'https://edge.test',
    ...options,
    fetch: async (request) => {
      const text = await request.text();
      seen.push({
        method: request.method,
        url: new URL(request.url),
        headers: Object.fromEntries(request.headers),
        body: text === '' ? undefined : JSON.parse(text),
      });
      return answer();
    },
  });
  return { api, seen };
}

describe('createMarqueeClient', () => {
  it('sends the admin token as a bearer on the admin API only, with a correlation id', async () => {
    const { api, seen } = harness({ adminToken: 'adm', apiKey: 'key', gateToken: 'gate' });
    await api.GET('/admin/v1/orders/{orderId}', { params: { path: { orderId: 'ord/1' } } });
    expect(seen[0]!.url.pathname).toBe('/admin/v1/orders/ord%2F1');
    expect(seen[0]!.url.search).toBe('');
    expect(seen[0]!.headers.authorization).toBe('Bearer adm');
    expect(seen[0]!.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]!.headers['content-type']).toBeUndefined();
  });

  it('adds the app key as the apikey query parameter where the operation accepts it, keeping the query and body', async () => {
    const { api, seen } = harness({ adminToken: 'adm', apiKey: 'key 1' });
    await api.GET('/discovery/v2/events', { params: { query: { keyword: 'rock' } } });
    await api.POST('/partners/v1/events/{event_id}/cart', {
      params: { path: { event_id: 'E1' }, header: { 'idempotency-key': 'k-1' } },
      body: { offers: [] } as never,
    });
    expect(seen[0]!.url.searchParams.get('keyword')).toBe('rock');
    expect(seen[0]!.url.searchParams.get('apikey')).toBe('key 1');
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(seen[1]!.url.searchParams.get('apikey')).toBe('key 1');
    expect(seen[1]!.headers['idempotency-key']).toBe('k-1');
    expect(seen[1]!.headers['content-type']).toBe('application/json');
    expect(seen[1]!.body).toEqual({ offers: [] });
  });

  it("leaves a call's own api-key alone, and sends no key where the operation takes none", async () => {
    const { api, seen } = harness({ apiKey: 'key' });
    await api.GET('/commerce/v2/events/{id}/offers', {
      params: { path: { id: 'E1' }, query: { 'api-key': 'other' } as never },
    });
    await api.POST('/webhooks/stripe', { body: {} as never });
    expect(seen[0]!.url.searchParams.getAll('apikey')).toEqual([]);
    expect(seen[0]!.url.searchParams.get('api-key')).toBe('other');
    expect(seen[1]!.url.search).toBe('');
  });

  it("sends a fan's token on commerce and the gate token on the gate API", async () => {
    const { api, seen } = harness({ apiKey: 'key', fanToken: 'fan-at', gateToken: 'gate' });
    await api.GET('/commerce/v2/shopping/carts/{cartId}', { params: { path: { cartId: 'C1' } } });
    await api.POST('/gate/v1/scans', { body: {} as never });
    expect(seen[0]!.headers['x-platform-access-token']).toBe('fan-at');
    expect(seen[1]!.headers.authorization).toBe('Bearer gate');
    expect(seen[1]!.headers['x-platform-access-token']).toBeUndefined();
    expect(seen[1]!.url.search).toBe('');
  });

  it('uses a fixed or computed correlation id, and never overrides the call’s own', async () => {
    let n = 0;
    const fixed = harness({ correlationId: 'corr-1' });
    await fixed.api.GET('/admin/v1/partners');
    const computed = harness({ correlationId: () => `c-${++n}` });
    await computed.api.GET('/admin/v1/partners');
    await computed.api.GET('/admin/v1/partners', { headers: { 'x-correlation-id': 'mine' } });
    expect(fixed.seen[0]!.headers['x-correlation-id']).toBe('corr-1');
    expect(computed.seen.map((s) => s.headers['x-correlation-id'])).toEqual(['c-1', 'mine']);
  });
});

describe('unwrap and MarqueeApiError', () => {
  it('returns the data of a 2xx answer', async () => {
    const { api } = harness({}, () => Response.json({ partners: [] }));
    await expect(unwrap(api.GET('/admin/v1/partners'))).resolves.toEqual({ partners: [] });
  });

  it('returns undefined for a 204', async () => {
    const { api } = harness({}, () => new Response(null, { status: 204 }));
    await expect(
      unwrap(api.DELETE('/admin/v1/fans/{fanId}', { params: { path: { fanId: 'F1' } } })),
    ).resolves.toBeUndefined();
  });

  it('throws the documented error body with status, code, correlation id and Retry-After', async () => {
    const { api } = harness(
      {},
      () =>
        new Response(JSON.stringify({ error: { code: 'unavailable', message: 'try later' } }), {
          status: 503,
          headers: { 'x-correlation-id': 'edge-1', 'retry-after': '3' },
        }),
    );
    const error = await unwrap(api.GET('/admin/v1/partners')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarqueeApiError);
    const apiError = error as MarqueeApiError;
    expect(apiError.status).toBe(503);
    expect(apiError.code).toBe('unavailable');
    expect(apiError.message).toBe('503 unavailable: try later');
    expect(apiError.correlationId).toBe('edge-1');
    expect(apiError.retryAfter).toBe(3);
    expect(apiError.body).toEqual({ error: { code: 'unavailable', message: 'try later' } });
  });

  it("reads every family's error body", () => {
    expect(
      describeError({ errors: [{ code: 'DIS1004', detail: 'not found', status: '404' }] }),
    ).toEqual({ code: 'DIS1004', message: 'not found' });
    expect(
      describeError({ errors: [{ code: '40401', message: 'no event', status: 404 }] }),
    ).toEqual({ code: '40401', message: 'no event' });
    expect(
      describeError({
        fault: { faultstring: 'Invalid ApiKey', detail: { errorcode: 'oauth.v2.InvalidApiKey' } },
      }),
    ).toEqual({ code: 'oauth.v2.InvalidApiKey', message: 'Invalid ApiKey' });
    expect(describeError({ message: 'bad size', statusCode: 406 })).toEqual({
      message: 'bad size',
    });
    expect(
      describeError({
        error: { code: '20122', message: 'refused', http_code: 402, severity: 'WARN' },
      }),
    ).toEqual({ code: '20122', message: 'refused' });
    expect(describeError('Bad Gateway')).toEqual({ message: 'Bad Gateway' });
  });

  it('reads the rate-limit headers', () => {
    const response = new Response(null, {
      headers: {
        'rate-limit': '5000',
        'rate-limit-available': '4999',
        'rate-limit-reset': '1700000000000',
        'rate-limit-over': '0',
      },
    });
    expect(rateLimitOf(response)).toEqual({
      limit: 5000,
      available: 4999,
      reset: 1700000000000,
      over: false,
    });
    expect(rateLimitOf(new Response(null))).toBeUndefined();
  });
});

describe('operations', () => {
  it('lists every operation of the document once, each with an operationId', () => {
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('postAdminOrdersByOrderIdCancel');
    expect(newIdempotencyKey()).not.toBe(newIdempotencyKey());
  });
});
