import type * as grpc from '@grpc/grpc-js';
import {
  callUnary,
  createGrpcClient,
  createGrpcServer,
  startGrpcServer,
  stopGrpcServer,
} from '@marquee/platform/grpc';
import { createLogger } from '@marquee/platform/logger';
import { createServiceStores } from '@marquee/platform/store';
import { CaseTrigger, Outcome, ReconcilerServiceClient } from '@marquee/proto/reconciliation/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReconcilerStorage } from '../src/adapters/stores.js';
import { ReconcilerApp } from '../src/app/reconciler-app.js';
import { reconcilerService } from '../src/index.js';
import { reconcilerGrpc } from '../src/ports/grpc/reconciler-grpc.js';
import { FakeConnector } from './fakes.js';

const logger = createLogger({ service: 'reconciler-test', level: 'silent' });
const now = new Date('2030-03-01T12:00:00Z');
let server: grpc.Server;
let sut: ReconcilerServiceClient;
let app: ReconcilerApp;

beforeAll(async () => {
  app = new ReconcilerApp({
    ...createReconcilerStorage(createServiceStores(undefined)),
    connector: new FakeConnector(),
    clock: { now: () => now },
    log: { info: () => {}, warn: () => {} },
    settings: {
      graceMs: 30_000,
      windowMs: 60_000,
      backoffBaseMs: 1_000,
      backoffMaxMs: 10_000,
      lookbackMs: 86_400_000,
    },
  });
  for (const cartId of ['c1', 'c2', 'c3']) {
    await app.recordPartnerCallFailed({
      kind: 'partner-call-failed',
      operation: 'CREATE_BOOKING',
      outcomeUnknown: true,
      message: 'timeout',
      cartId,
      eventId: 'ev-1',
      partnerId: cartId === 'c3' ? 'p-2' : 'p-1',
      failedAt: now,
    });
  }
  server = createGrpcServer({
    logger,
    services: [reconcilerGrpc(app)],
    callers: reconcilerService.callers!,
  });
  const port = await startGrpcServer(server, { host: '127.0.0.1', port: 0 });
  sut = createGrpcClient(ReconcilerServiceClient, `127.0.0.1:${port}`, {
    deadlineMs: 5_000,
    caller: 'edge-gateway',
  });
});
afterAll(async () => {
  sut?.close();
  await stopGrpcServer(server, 1_000);
});

describe('ReconcilerService over gRPC', () => {
  it('answers a case, and NOT_FOUND for an unknown one', async () => {
    const { case: found } = await callUnary(sut, 'getCase', { id: 'rc-c1' });
    expect(found).toMatchObject({
      id: 'rc-c1',
      cartId: 'c1',
      trigger: CaseTrigger.CASE_TRIGGER_PARTNER_CALL_FAILED,
      outcome: Outcome.OUTCOME_UNSPECIFIED,
      openedAt: now,
    });
    expect(found?.resolvedAt).toBeUndefined();
    await expect(callUnary(sut, 'getCase', { id: 'nope' })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('lists cases with paging and a partner filter', async () => {
    const page = await callUnary(sut, 'listCases', {
      openOnly: true,
      partnerId: 'p-1',
      page: { offset: 1, limit: 1 },
    });
    expect(page.page).toEqual({ offset: 1, limit: 1, total: 2 });
    expect(page.cases).toHaveLength(1);
  });

  it('runs an event reconciliation and then serves its report; NOT_FOUND before', async () => {
    await expect(callUnary(sut, 'getEventReport', { eventId: 'ev-9' })).rejects.toMatchObject({
      kind: 'not_found',
    });
    const { report } = await callUnary(sut, 'reconcileEvent', { eventId: 'ev-9' });
    expect(report).toMatchObject({ eventId: 'ev-9', partnerTransactions: 0, generatedAt: now });
    const again = await callUnary(sut, 'getEventReport', { eventId: 'ev-9' });
    expect(again.report).toEqual(report);
    await expect(callUnary(sut, 'reconcileEvent', { eventId: '' })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });
});
