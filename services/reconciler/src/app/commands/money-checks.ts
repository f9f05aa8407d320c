import { moneyCaseIdFor, openCase, type ReconciliationCase } from '../../domain/case.js';
import { checkMoney } from '../../domain/money.js';
import type { Transaction } from '../../domain/transaction.js';
import type { CaseRepository, Clock, ReconcilerLog, TransactionRepository } from '../ports.js';

const BATCH = 100;

/**
 * The money checks (`checkMoney`): every transaction whose check is due (a capture whose grace
 * period for its order has passed, an order confirmed short of its capture) is checked once. A
 * finding is a MANUAL case, decided at once with the operator's action (no partner call can settle
 * money), published on `reconciliation-resolved`; its id is the transaction's money case id, so a
 * transaction has at most one. Resolves how many cases were opened.
 */
export async function sweepMoneyChecks(deps: {
  transactions: TransactionRepository;
  cases: CaseRepository;
  clock: Clock;
  log: ReconcilerLog;
  graceMs: number;
}): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.transactions.findMoneyChecksDueBefore(
    new Date(now.getTime() - deps.graceMs),
    BATCH,
  );
  let opened = 0;
  for (const t of due) {
    const finding = checkMoney(t);
    if (finding && (await openMoneyCase(deps.cases, t, finding, now))) {
      opened++;
      deps.log.warn(
        { caseId: moneyCaseIdFor(t.id), trigger: finding.trigger },
        `money case: ${finding.detail}`,
      );
    }
    const checkedAt = t.moneyCheckAt?.getTime();
    await deps.transactions.upsert(t.id, (current) => {
      if (!current || current.moneyCheckAt?.getTime() !== checkedAt) return undefined;
      const { moneyCheckAt: _checked, ...rest } = current;
      return rest;
    });
  }
  return opened;
}

async function openMoneyCase(
  cases: CaseRepository,
  t: Transaction,
  finding: NonNullable<ReturnType<typeof checkMoney>>,
  now: Date,
): Promise<boolean> {
  const c: ReconciliationCase = {
    ...openCase({
      transaction: t,
      trigger: finding.trigger,
      observedAt: t.moneyCheckAt ?? now,
      dueAt: now,
      now,
      detail: finding.detail,
    }),
    id: moneyCaseIdFor(t.id),
    outcome: 'MANUAL',
    open: false,
    resolvedAt: now,
    operatorAction: finding.operatorAction,
    ...(t.payment?.paymentId ? { paymentId: t.payment.paymentId } : {}),
  };
  try {
    await cases.insert(c);
    return true;
  } catch (error) {
    // Reported already (a redelivered fact, another replica): once is enough.
    if ((error as { kind?: unknown } | null)?.kind === 'already_exists') return false;
    throw error;
  }
}
