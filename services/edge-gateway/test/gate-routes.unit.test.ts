import { AppError } from '@marquee/platform/errors';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { GateRecord, ScanAnswer, SecureEntryBackend } from '../src/app/secure-entry.js';
import { useEdge, adminInject } from './edge-harness.js';

const GATE_TOKEN = 'mqg_g0123456789abcdef.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const startEdge = useEdge();

async function edge(secureEntry: Partial<SecureEntryBackend>): Promise<FastifyInstance> {
  return startEdge({ secureEntry });
}

const admitted: ScanAnswer = {
  result: 'ADMITTED',
  gateId: 'g0123456789abcdef',
  eventId: 'EvSecure0000001',
  ticketId: 'ord-1-t1',
  displayId: 'XXXXXXXXXXXX1234',
  section: '101',
  row: 'C',
  seat: '7',
  admittedAt: '2026-06-01T18:00:00.000Z',
  admittedByGateId: 'g0123456789abcdef',
};

const scan = (app: FastifyInstance, payload: unknown, token: string | undefined = GATE_TOKEN) =>
  app.inject({
    method: 'POST',
    url: '/gate/v1/scans',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('POST /gate/v1/scans', () => {
  it('passes the gate token and payload and says whether to open', async () => {
    const seen: Array<[string, string]> = [];
    const answers: ScanAnswer[] = [
      admitted,
      { ...admitted, result: 'REPLAYED' },
      { ...admitted, result: 'FORGED', ticketId: '', admittedAt: undefined, admittedByGateId: '' },
    ];
    const app = await edge({
      validateScan: async (token, payload) => {
        seen.push([token, payload]);
        return answers.shift()!;
      },
    });
    const first = await scan(app, { payload: 'MQ1:abc:123456:654321:1780000000' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      admit: true,
      result: 'ADMITTED',
      gateId: 'g0123456789abcdef',
      eventId: 'EvSecure0000001',
      ticket: {
        id: 'ord-1-t1',
        displayId: 'XXXXXXXXXXXX1234',
        section: '101',
        row: 'C',
        seat: '7',
      },
      admittedAt: '2026-06-01T18:00:00.000Z',
      admittedByGateId: 'g0123456789abcdef',
    });
    expect(seen[0]).toEqual([GATE_TOKEN, 'MQ1:abc:123456:654321:1780000000']);
    const replay = await scan(app, { payload: 'MQ1:abc:123456:654321:1780000000' });
    expect(replay.json()).toMatchObject({ admit: false, result: 'REPLAYED' });
    const forged = await scan(app, { payload: 'garbage' });
    expect(forged.json()).toMatchObject({ admit: false, result: 'FORGED', ticket: null });
  });

  it('never opens for a sandbox ticket', async () => {
    const app = await edge({
      validateScan: async () => ({ ...admitted, result: 'SANDBOX', admittedAt: undefined }),
    });
    const response = await scan(app, { payload: 'MQ1:abc:123456:654321:1780000000' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ admit: false, result: 'SANDBOX' });
  });

  it('answers 401 in the gate body without a bearer token, or when secure-entry refuses it', async () => {
    const app = await edge({
      validateScan: async () => {
        throw new AppError('unauthenticated', 'A valid gate token is required');
      },
    });
    const none = await scan(app, { payload: 'x' }, '');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({
      error: { code: 'unauthenticated', message: 'Authorization: Bearer <gate token> is required' },
    });
    const unknown = await scan(app, { payload: 'x' });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.code).toBe('unauthenticated');
  });

  it('answers a gate over its scan bound 429 in the gate body, with Retry-After', async () => {
    const app = await edge({
      validateScan: async () => {
        throw new AppError('resource_exhausted', 'Too many scans from this gate; retry later', {
          details: { retryAfterMs: 41_200 },
        });
      },
    });
    const refused = await scan(app, { payload: 'MQ1:abc:123456:654321:1780000000' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('42');
    expect(refused.json()).toEqual({
      error: {
        code: 'resource_exhausted',
        message: 'Too many scans from this gate; retry later',
      },
    });
  });

  it('answers bad input with 400 in the gate body, never 500', async () => {
    const app = await edge({ validateScan: async () => admitted });
    for (const payload of [
      {},
      { payload: '' },
      { payload: 5 },
      { payload: 'x'.repeat(4097) },
      { payload: 'x', more: 1 },
      '[',
      'null',
    ]) {
      const response = await scan(app, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.code).toBeDefined();
    }
    const notFound = await app.inject({ method: 'GET', url: '/gate/v1/nothing' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json()).toEqual({
      error: { code: 'not_found', message: 'Resource not found: /gate/v1/nothing' },
    });
  });
});

describe('admin gates', () => {
  const gate: GateRecord = {
    id: 'g0123456789abcdef',
    name: 'North 1',
    eventId: 'EvSecure0000001',
    createdAt: '2026-05-01T00:00:00.000Z',
  };
  const admin = (
    app: FastifyInstance,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body?: unknown,
  ) => adminInject(app, method, url, body);

  it('creates a gate and shows its token once, lists and revokes', async () => {
    const app = await edge({
      createGate: async (input) => ({ gate: { ...gate, ...input }, token: GATE_TOKEN }),
      listGates: async (eventId) => (eventId === 'none' ? [] : [gate]),
      revokeGate: async (id) => {
        if (id !== gate.id) throw new AppError('not_found', `No gate ${id}`);
        return { ...gate, revokedAt: '2026-05-02T00:00:00.000Z' };
      },
    });
    const created = await admin(app, 'POST', '/admin/v1/gates', {
      name: 'North 1',
      eventId: 'EvSecure0000001',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ gate, token: GATE_TOKEN });
    expect((await admin(app, 'GET', '/admin/v1/gates')).json()).toEqual({ gates: [gate] });
    expect((await admin(app, 'GET', '/admin/v1/gates?eventId=none')).json()).toEqual({ gates: [] });
    const revoked = await admin(app, 'DELETE', `/admin/v1/gates/${gate.id}`);
    expect(revoked.json().gate.revokedAt).toBe('2026-05-02T00:00:00.000Z');
    expect((await admin(app, 'DELETE', '/admin/v1/gates/gffff')).statusCode).toBe(404);
    expect(
      (await admin(app, 'POST', '/admin/v1/gates', { name: '', eventId: 'E' })).statusCode,
    ).toBe(400);
    expect(
      (await admin(app, 'POST', '/admin/v1/gates', { name: 'x', eventId: 'bad id' })).statusCode,
    ).toBe(400);
  });
});
