import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { waitFor } from '@marquee/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { grantPartnerDistribution, importPartnerEvent } from '../support/partner-event.js';
import { requirePrometheus, startPrometheus, type Prometheus } from '../support/prometheus.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();
const prometheusBinary = requirePrometheus();

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const PREPROD = '/partners-preprod/v1';

/**
 * What an operator's Prometheus sees: a real Prometheus server scrapes every process of the stack
 * on its own metrics port, and a purchase moves the business series (reserves, tickets held,
 * payments, orders) while consumer lag is reported for the groups that read the purchase's topics.
 */
describe.skipIf(!infra || !prometheusBinary)(
  'metrics scraped by Prometheus (distributed mode)',
  () => {
    let sut: Stack;
    let prometheus: Prometheus;
    let apiKey: string;
    let eventId: string;
    const marker = `ms${randomBytes(4).toString('hex')}`;

    let lastAnswer = 0;
    const call = async (method: string, url: string, body?: unknown) => {
      // An app's default quota is 5 calls a second.
      const wait = lastAnswer + 220 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        const response = await fetch(`${sut.baseUrl}${url}`, {
          method,
          headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const text = await response.text();
        return { status: response.status, body: (text ? JSON.parse(text) : {}) as Json };
      } finally {
        lastAnswer = Date.now();
      }
    };
    /** One number from Prometheus: the sum of the expression's samples, 0 when it has none. */
    const total = async (expr: string) =>
      (await prometheus.query(expr)).reduce((sum, sample) => sum + sample.value, 0);

    beforeAll(async () => {
      sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
      prometheus = await startPrometheus(
        prometheusBinary!,
        [...sut.services.values()].map((service) => ({
          job: service.name,
          port: service.metricsPort,
        })),
      );
      const created = await fetch(`${sut.baseUrl}/admin/v1/apps`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'metrics e2e', redirectUris: ['https://e2e.example/cb'] }),
      });
      expect(created.status).toBe(201);
      const app = (await created.json()) as { appId: string; apiKey: string };
      apiKey = app.apiKey;
      await grantPartnerDistribution(sut, app.appId);
      ({ eventId } = await importPartnerEvent(sut, { apiKey, marker }));
    }, 240_000);

    afterAll(async () => {
      await prometheus?.stop();
      await sut?.stop();
    });

    it('scrapes every process, and a purchase moves reserves, tickets held, payments and orders', async () => {
      const jobs = [...sut.services.keys()];
      await waitFor(
        async () => {
          const up = await prometheus.query('up == 1');
          return jobs.every((job) => up.some((sample) => sample.metric.job === job));
        },
        { timeoutMs: 30_000, intervalMs: 500, description: `every process scraped (${jobs})` },
      );
      const series = {
        held: 'marquee_reserves_total{outcome="held"}',
        tickets: 'marquee_tickets_held_total{inventory="sandbox"}',
        authorized: 'marquee_payments_total{operation="authorize",outcome="ok"}',
        confirmed: 'marquee_orders_confirmed_total',
      };
      const before: Record<string, number> = {};
      for (const [name, expr] of Object.entries(series)) before[name] = await total(expr);

      // A purchase of two tickets on the pre-production prefix (sandbox inventory and payment).
      const reserved = await call('POST', `${PREPROD}/events/${eventId}/cart`, {
        reserve: { tickets: [{ id: 'ADULT', quantity: 2 }] },
      });
      let cart = reserved.body;
      if (reserved.status === 202)
        cart = await waitFor(
          async () => {
            const polled = await call('GET', cart.polling_url as string);
            return polled.status === 200 ? polled.body : undefined;
          },
          { timeoutMs: 20_000, intervalMs: 250, description: 'the reserve to complete' },
        );
      else expect(reserved.status, JSON.stringify(cart)).toBe(200);
      const cartId = cart.cart_id as string;
      const options = await call(
        'GET',
        `${PREPROD}/events/${eventId}/cart/shipping?cart_id=${encodeURIComponent(cartId)}`,
      );
      expect(options.status).toBe(200);
      const shipped = await call('PUT', `${PREPROD}/events/${eventId}/cart/shipping`, {
        cart_id: cartId,
        shipping_id: (options.body.shipping_options as Json[])[0]!.id,
      });
      expect(shipped.status).toBe(200);
      const paid = await call('PUT', `${PREPROD}/events/${eventId}/cart/payment`, {
        cartId,
        payment: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          type: 'CC',
          amount: (shipped.body.cart.totals.unpaid as number).toFixed(2),
          currency: 'EUR',
          card: { number: 'fake-valid-nonce', cin: '123', expire_month: 12, expire_year: 2031 },
          email_address: `${marker}@example.com`,
          third_party_account_id: marker,
        },
      });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      const committed = await call('PUT', `${PREPROD}/events/${eventId}/cart`, { cart_id: cartId });
      expect(committed.status, JSON.stringify(committed.body)).toBe(200);

      const moved = await waitFor(
        async () => {
          const now: Record<string, number> = {};
          for (const [name, expr] of Object.entries(series)) now[name] = await total(expr);
          return now.held! >= before.held! + 1 &&
            now.tickets! >= before.tickets! + 2 &&
            now.authorized! >= before.authorized! + 1 &&
            now.confirmed! >= before.confirmed! + 1
            ? now
            : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 500, description: 'the purchase in scraped series' },
      );
      expect(moved.tickets).toBeGreaterThanOrEqual(before.tickets! + 2);

      // Consumer lag is reported per group and partition for the purchase's own topic.
      const lag = await waitFor(
        async () => {
          const samples = await prometheus.query(
            'marquee_kafka_consumer_lag{topic="order-confirmed"}',
          );
          return samples.length > 0 ? samples : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 500, description: 'consumer lag of order-confirmed' },
      );
      expect(lag.every((sample) => Number.isFinite(sample.value) && sample.value >= 0)).toBe(true);
      expect(new Set(lag.map((sample) => sample.metric.group)).size).toBeGreaterThan(0);

      // The chart's Grafana dashboard: every panel's query is valid PromQL on a real Prometheus
      // (a parse error fails the query), and the sale's panels show this purchase.
      const board = JSON.parse(
        await readFile(
          new URL('../../deploy/helm/marquee/files/dashboard.json', import.meta.url),
          'utf8',
        ),
      ) as { panels: Array<{ title: string; targets?: Array<{ expr: string }> }> };
      const wanted = [
        'Reserves by outcome',
        'Tickets held',
        'Orders',
        'Payments by outcome',
        'Consumer lag',
        'HTTP p99 by service',
      ];
      // A rate needs two scrapes of a series: the newest (orders) may need a second or two more.
      const showing = await waitFor(
        async () => {
          const shown = new Set<string>();
          for (const panel of board.panels) {
            for (const target of panel.targets ?? []) {
              const expr = target.expr
                .replaceAll('$__rate_interval', '5m')
                .replaceAll('$namespace', '.*');
              // Throws on a query Prometheus cannot parse: waitFor then fails naming it.
              if ((await prometheus.query(expr)).length > 0) shown.add(panel.title);
            }
          }
          return wanted.every((title) => shown.has(title)) ? shown : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 1_000, description: `dashboard panels ${wanted}` },
      );
      expect([...showing]).toEqual(expect.arrayContaining(wanted));
    }, 180_000);
  },
);
