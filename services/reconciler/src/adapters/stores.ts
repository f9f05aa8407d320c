import {
  errorKindOf,
  isWriteRace,
  retryingConflicts,
  withoutVersion,
} from '@marquee/platform/kernel';
import { createOutboxEvent } from '@marquee/platform/outbox';
import { deleteAtVersion, type ServiceStores, type VersionedStore } from '@marquee/platform/store';
import { reconciliationResolvedTopic } from '@marquee/proto/topics';
import type {
  CaseRepository,
  ReportRepository,
  Stored,
  TransactionRepository,
} from '../app/ports.js';
import type { ReconciliationCase } from '../domain/case.js';
import type { EventReport } from '../domain/report.js';
import type { Transaction } from '../domain/transaction.js';
import { toCaseMessage } from './case-message.js';

type TransactionDoc = Stored<Transaction>;
type CaseDoc = Stored<ReconciliationCase>;
type ReportDoc = Stored<EventReport>;

export interface ReconcilerStorage {
  transactions: TransactionRepository;
  cases: CaseRepository;
  reports: ReportRepository;
}

/**
 * The reconciler's collections (memory or Mongo, chosen by `openServiceStores`): `transactions`,
 * `cases` (whose decided writes carry `reconciliation-resolved` in their outbox) and `event_reports`.
 */
export function createReconcilerStorage(stores: ServiceStores): ReconcilerStorage {
  const transactions = stores.collection<TransactionDoc>('transactions', [
    { fields: { orderId: 1 } },
    { fields: { eventId: 1, lastActivityAt: 1 } },
    { fields: { lastActivityAt: 1 } },
    { fields: { phase: 1, staleChecked: 1, expiresAt: 1 } },
    { fields: { moneyCheckAt: 1 } },
  ]);
  const cases = stores.collection<CaseDoc>('cases', [
    { fields: { open: 1, dueAt: 1 } },
    { fields: { openedAt: -1 } },
    { fields: { partnerId: 1, openedAt: -1 } },
  ]);
  const reports = stores.collection<ReportDoc>('event_reports');
  return {
    transactions: transactionRepository(transactions),
    cases: caseRepository(cases),
    reports: reportRepository(reports),
  };
}

export function transactionRepository(
  store: VersionedStore<TransactionDoc>,
): TransactionRepository {
  return {
    get: (id) => store.get(id),
    async findByOrderId(orderId) {
      const [found] = await store.find({ orderId }, { sort: { lastActivityAt: -1 }, limit: 1 });
      return found;
    },
    async upsert(id, change, options) {
      const fresh = options?.likelyNew ? change(undefined) : undefined;
      if (fresh) {
        try {
          return withoutVersion(await store.insert({ ...fresh, id }));
        } catch (error) {
          if (errorKindOf(error) !== 'already_exists') throw error;
        }
      }
      return retryingConflicts(
        async () => {
          const current = await store.get(id);
          const next = change(current && withoutVersion(current));
          if (!next) return current && withoutVersion(current);
          const stored = current
            ? await store.update(id, current.version, { ...next, id })
            : await store.insert({ ...next, id });
          return withoutVersion(stored);
        },
        { isConflict: isWriteRace },
      );
    },
    async delete(id) {
      await store.delete(id);
    },
    deleteAt: (id, version) => deleteAtVersion(store, id, version),
    findInactiveBefore: (before, { skip, limit }) =>
      store.find({ lastActivityAt: { $lt: before } }, { sort: { lastActivityAt: 1 }, skip, limit }),
    async findUncheckedHoldsEndedBefore(endedBefore, limit) {
      const docs = await store.find(
        { phase: 'held', staleChecked: false, expiresAt: { $lt: endedBefore } },
        { sort: { expiresAt: 1 }, limit },
      );
      return docs.map(withoutVersion);
    },
    async findMoneyChecksDueBefore(before, limit) {
      const docs = await store.find(
        { moneyCheckAt: { $lt: before } },
        { sort: { moneyCheckAt: 1 }, limit },
      );
      return docs.map(withoutVersion);
    },
    async findByEvent(eventId, since) {
      const docs = await store.find({ eventId, lastActivityAt: { $gte: since } });
      return docs.map(withoutVersion);
    },
    async activeEventIds(since) {
      const docs = await store.find({ lastActivityAt: { $gte: since } });
      return [...new Set(docs.map((d) => d.eventId).filter((id) => id !== ''))];
    },
  };
}

export function caseRepository(store: VersionedStore<CaseDoc>): CaseRepository {
  // Every write that leaves a case decided announces it, atomically with the write.
  const eventsOf = (c: ReconciliationCase) =>
    c.open
      ? []
      : [
          createOutboxEvent(reconciliationResolvedTopic, {
            key: c.id,
            value: { case: toCaseMessage(c) },
            ...(c.resolvedAt ? { time: c.resolvedAt } : {}),
          }),
        ];
  return {
    get: (id) => store.get(id),
    insert: (c) => store.insert({ ...c }, { events: eventsOf(c) }),
    update: (c, expectedVersion) =>
      store.update(c.id, expectedVersion, { ...c }, { events: eventsOf(c) }),
    findDue: (now, limit) =>
      store.find({ open: true, dueAt: { $lte: now } }, { sort: { dueAt: 1 }, limit }),
    async list({ openOnly, partnerId, offset, limit }) {
      const filter = {
        ...(openOnly ? { open: true } : {}),
        ...(partnerId ? { partnerId } : {}),
      };
      const [docs, total] = await Promise.all([
        store.find(filter, { sort: { openedAt: -1 }, skip: offset, limit }),
        store.count(filter),
      ]);
      return { cases: docs.map(withoutVersion), total };
    },
  };
}

export function reportRepository(store: VersionedStore<ReportDoc>): ReportRepository {
  return {
    async get(eventId) {
      const doc = await store.get(eventId);
      return doc && withoutVersion(doc);
    },
    async put(report) {
      await retryingConflicts(
        async () => {
          const current = await store.get(report.id);
          if (current) await store.update(report.id, current.version, { ...report });
          else await store.insert({ ...report });
        },
        { isConflict: isWriteRace },
      );
    },
  };
}
