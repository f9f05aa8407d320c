import { AppError } from '@marquee/platform/errors';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type {
  CaseQuery,
  CaseRecord,
  EventReportRecord,
  Reconciliation,
} from '../src/app/reconciliation.js';
import { ADMIN_TOKEN as adminToken, useEdge } from './edge-harness.js';

const startEdge = useEdge();

const aCase: CaseRecord = {
  id: 'rc-cart-1',
  partnerId: 'p-1',
  eventId: 'ev-1',
  cartId: 'cart-1',
  inventoryToken: 'tok-1',
  trigger: 'PARTNER_CALL_FAILED',
  outcome: 'BOOKING_RELEASED',
  detail: 'released orphan booking tok-1',
  openedAt: '2030-01-01T00:00:00.000Z',
  resolvedAt: '2030-01-01T00:00:31.000Z',
};
const report: EventReportRecord = {
  eventId: 'ev-1',
  partnerId: 'p-1',
  generatedAt: '2030-01-01T01:00:00.000Z',
  periodStart: '2029-12-25T01:00:00.000Z',
  periodEnd: '2030-01-01T01:00:00.000Z',
  partnerTransactions: 4,
  platformTransactions: 3,
  matched: 2,
  orphansCancelled: 1,
  missingAtPartner: 1,
  caseIds: ['rc-cart-2'],
};

async function edge(reconciliation: Partial<Reconciliation>): Promise<FastifyInstance> {
  return startEdge({ reconciliation });
}

const call = (app: FastifyInstance, method: 'GET' | 'POST', url: string, token = adminToken) =>
  app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('GET /admin/v1/reconciliation/cases', () => {
  it('passes the filters and paging and answers the page', async () => {
    const asked: CaseQuery[] = [];
    const app = await edge({
      async listCases(query) {
        asked.push(query);
        return { cases: [aCase], page: { offset: query.offset, limit: query.limit, total: 7 } };
      },
    });
    const response = await call(
      app,
      'GET',
      '/admin/v1/reconciliation/cases?openOnly=true&partnerId=p-1&offset=5&limit=1',
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ cases: [aCase], page: { offset: 5, limit: 1, total: 7 } });
    const defaults = await call(app, 'GET', '/admin/v1/reconciliation/cases');
    expect(defaults.statusCode).toBe(200);
    expect(asked).toEqual([
      { openOnly: true, partnerId: 'p-1', offset: 5, limit: 1 },
      { openOnly: false, offset: 0, limit: 50 },
    ]);
  });

  it('refuses bad paging with 400', async () => {
    const app = await edge({});
    for (const query of ['limit=0', 'limit=501', 'offset=-1', 'openOnly=maybe', 'unknown=1']) {
      const response = await call(app, 'GET', `/admin/v1/reconciliation/cases?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({ error: { code: 'invalid_request' } });
    }
  });

  it('answers 401 without the admin token', async () => {
    const app = await edge({});
    const response = await call(app, 'GET', '/admin/v1/reconciliation/cases', '');
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: { code: 'unauthenticated' } });
  });
});

describe('GET /admin/v1/reconciliation/cases/:id', () => {
  it('answers the case, and 404 for an unknown one', async () => {
    const app = await edge({
      async getCase(id) {
        if (id === aCase.id) return aCase;
        throw new AppError('not_found', `no reconciliation case ${id}`);
      },
    });
    const found = await call(app, 'GET', '/admin/v1/reconciliation/cases/rc-cart-1');
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual(aCase);
    const missing = await call(app, 'GET', '/admin/v1/reconciliation/cases/rc-nope');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      error: { code: 'not_found', message: 'no reconciliation case rc-nope' },
    });
  });
});

describe('event reconciliation', () => {
  it('runs an event now (200 with the report) and then serves the report', async () => {
    let latest: EventReportRecord | undefined;
    const app = await edge({
      async reconcileEvent(eventId) {
        latest = { ...report, eventId };
        return latest;
      },
      async getEventReport(eventId) {
        if (!latest)
          throw new AppError('not_found', `event ${eventId} has not been reconciled yet`);
        return latest;
      },
    });
    const before = await call(app, 'GET', '/admin/v1/reconciliation/events/ev-1/report');
    expect(before.statusCode).toBe(404);
    const run = await call(app, 'POST', '/admin/v1/reconciliation/events/ev-1/runs');
    expect(run.statusCode).toBe(200);
    expect(run.json()).toEqual(report);
    const after = await call(app, 'GET', '/admin/v1/reconciliation/events/ev-1/report');
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual(report);
  });

  it('answers 503 with Retry-After when the partner cannot be read', async () => {
    const app = await edge({
      async reconcileEvent() {
        throw new AppError('unavailable', "the partner's records could not be read");
      },
    });
    const response = await call(app, 'POST', '/admin/v1/reconciliation/events/ev-1/runs');
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toMatchObject({ error: { code: 'unavailable' } });
  });

  it('refuses a malformed event id with 400', async () => {
    const app = await edge({});
    const response = await call(app, 'POST', '/admin/v1/reconciliation/events/bad%20id/runs');
    expect(response.statusCode).toBe(400);
  });
});
