import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireInfra } from '../support/infra.js';
import { grantPartnerDistribution, importPartnerEvent } from '../support/partner-event.js';
import { startStack, type Stack } from '../support/stack.js';

const infra = requireInfra();

/** The fields of the answers this test reads (a queue ticket, a reserve's 202). */
interface Answer {
  id: string;
  status: string;
  position?: number;
  admission_token: string;
  cart_id: string;
}

/**
 * The waiting room through the edge, every service its own process on real Kafka and a real
 * Mongo-wire server: three fans join an event of two places before its opening and follow their
 * tickets with long polls, which the edge holds on its watch of the on-sale (cart's `GetOnSale`)
 * and answers from a fresh read of the ticket (cart's `GetQueueTicket`, with the fan's rank). An
 * admitted fan reserves with its admission. Bench: bench/onsale (10,000 fans).
 */
describe.skipIf(!infra)('waiting room (distributed mode)', () => {
  let sut: Stack;
  let eventId: string;
  let apiKey: string;
  const marker = `wr${randomBytes(4).toString('hex')}`;
  const statuses: number[] = [];

  const call = async (method: string, path: string, body?: unknown, headers = {}) => {
    const response = await fetch(`${sut.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': apiKey,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    statuses.push(response.status);
    const text = await response.text();
    return { status: response.status, json: (text ? JSON.parse(text) : {}) as Answer };
  };
  const onSale = async (opensAt: Date) => {
    const response = await fetch(`${sut.baseUrl}/admin/v1/events/${eventId}/onsale`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ opensAt: opensAt.toISOString(), queue: true }),
    });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    sut = await startStack({ kafkaBrokers: infra!.kafkaBrokers, mongoUrl: infra!.mongoUrl });
    const app = await fetch(`${sut.baseUrl}/admin/v1/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sut.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'waiting room e2e',
        redirectUris: ['https://e2e.example/cb'],
        quota: { perSecond: 1_000, perDay: 1_000_000, heldTicketsPerEvent: 0 },
      }),
    });
    expect(app.status).toBe(201);
    const created = (await app.json()) as { apiKey: string; appId: string };
    apiKey = created.apiKey;
    await grantPartnerDistribution(sut, created.appId);
    ({ eventId } = await importPartnerEvent(sut, { apiKey, marker, capacity: 2 }));
  });

  afterAll(async () => {
    await sut?.stop();
  });

  it('orders early fans at the opening, admits them by rank and ends each held or sold out', async () => {
    await onSale(new Date(Date.now() + 3_600_000));
    const fans = [0, 1, 2].map((i) => ({ deviceId: `${marker}-d${i}`, ticketId: '' }));
    for (const fan of fans) {
      const joined = await call('POST', `/partners/v1/events/${eventId}/queue`, {
        device_id: fan.deviceId,
      });
      expect(joined.status).toBe(201);
      expect(joined.json).toMatchObject({ status: 'WAITING', poll_after_seconds: 2 });
      // Before the opening the early joiners have no place yet, and the body never shows a rank.
      expect(joined.json).not.toHaveProperty('position');
      expect(joined.json).not.toHaveProperty('rank');
      fan.ticketId = joined.json.id;
    }
    // Each fan long-polls from before the opening: the edge holds the polls while cart freezes
    // the early order at the opening (two seconds from now, plus its grace).
    const follow = (ticketId: string) =>
      call('GET', `/partners/v1/events/${eventId}/queue/${ticketId}?wait=25`);
    const held = fans.map((fan) => follow(fan.ticketId));
    await onSale(new Date(Date.now() + 2_000));
    const first = await Promise.all(held);
    for (const { status, json } of first) {
      expect(status).toBe(200);
      expect(json).not.toHaveProperty('rank');
      expect(['WAITING', 'ADMITTED']).toContain(json.status);
      if (json.status === 'WAITING') expect(json.position).toBeGreaterThanOrEqual(1);
    }

    // Follow each until its turn or the sell-out; an admitted fan reserves one ticket with it.
    const ends = await Promise.all(
      fans.map(async (fan, i) => {
        let ticket = first[i]!.json;
        for (let polls = 0; ticket.status === 'WAITING' && polls < 10; polls += 1)
          ticket = (await follow(fan.ticketId)).json;
        if (ticket.status !== 'ADMITTED') return ticket.status as string;
        const reserved = await call(
          'POST',
          `/partners/v1/events/${eventId}/cart`,
          { reserve: { tickets: [{ id: 'ADULT', quantity: 1 }] } },
          {
            'x-admission-token': ticket.admission_token,
            'x-device-id': fan.deviceId,
            'idempotency-key': `${marker}-r${i}`,
          },
        );
        let answer = reserved;
        // A slow reserve answers 202 and is followed on the cart's own GET.
        for (let polls = 0; answer.status === 202 && polls < 30; polls += 1) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          answer = await call(
            'GET',
            `/partners/v1/events/${eventId}/cart?cart_id=${encodeURIComponent(reserved.json.cart_id)}`,
          );
        }
        return answer.status === 200 ? 'held' : `reserve ${answer.status}`;
      }),
    );
    expect(ends.filter((end) => end === 'held')).toHaveLength(2);
    // The third fan: told SOLD_OUT while it waited, or admitted and refused by the sold-out event.
    expect(['SOLD_OUT', 'reserve 409']).toContain(ends.find((end) => end !== 'held'));
    expect(statuses.filter((status) => status >= 500)).toEqual([]);

    // The admitting cart replica's metrics: the admissions counted, and the event's queue watched
    // for stalls and moving (MarqueeQueueStalled fires at 300 s).
    const { metricsPort } = sut.services.get('cart')!;
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const value = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(value('marquee_queue_admissions_total')).toBeGreaterThanOrEqual(2);
    const stalled = value(`marquee_queue_stalled_seconds{event_id="${eventId}"}`);
    expect(stalled).toBeGreaterThanOrEqual(0);
    expect(stalled).toBeLessThan(60);
  });
});
