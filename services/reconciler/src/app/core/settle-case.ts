import { errorKindOf } from '@marquee/platform/kernel';
import { backoffMs, type CaseTrigger, type ReconciliationCase } from '../../domain/case.js';
import type { Decision } from '../../domain/decision.js';
import type { Stored } from '../ports.js';
import type { ReconcilerDeps } from '../types.js';
import { mayPassLater, messageOf } from './common.js';

/**
 * Ending a case, shared by the worker and the event report: a decision's partner actions carried
 * out and its outcome stored (`settle`), or the case put off for a later attempt (`postpone`).
 */
export class SettleCase {
  constructor(private readonly deps: ReconcilerDeps) {}

  /**
   * Carries out a decision's partner actions and stores the outcome (which publishes
   * `reconciliation-resolved`). A transient failure keeps the case open for a later attempt; a
   * refusal hands it to an operator. A concurrent change of the case skips it (`undefined`).
   */
  async settle(
    c: Stored<ReconciliationCase>,
    decision: Decision,
    trigger?: CaseTrigger,
  ): Promise<{ case: ReconciliationCase | undefined; acted: number }> {
    const notes: string[] = [];
    let acted = 0;
    for (const action of decision.actions) {
      try {
        if (action.kind === 'release-booking') {
          await this.deps.connector.releaseBooking(action.eventId, action.inventoryToken);
        } else {
          const { queued } = await this.deps.connector.cancelOrder(action);
          if (queued) notes.push(`cancel of ${action.inventoryOrderId} queued by the connector`);
        }
        acted++;
      } catch (error) {
        if (action.kind === 'release-booking' && errorKindOf(error) === 'not_found') {
          acted++;
          continue; // already gone at the partner
        }
        const what =
          action.kind === 'release-booking'
            ? `release booking ${action.inventoryToken}`
            : `cancel order ${action.inventoryOrderId}`;
        if (mayPassLater(error)) {
          return { case: await this.postpone(c, `could not ${what}: ${messageOf(error)}`), acted };
        }
        return {
          case: await this.write(c, {
            outcome: 'MANUAL',
            detail: `the partner refused to ${what} (${messageOf(error)}); ${decision.detail}`,
            ...(trigger ? { trigger } : {}),
          }),
          acted,
        };
      }
    }
    const detail = [decision.detail, ...notes].join('; ');
    return {
      case: await this.write(c, {
        outcome: decision.outcome,
        detail,
        ...(trigger ? { trigger } : decision.missingAtPartner ? { trigger: 'ORDER_MISMATCH' } : {}),
      }),
      acted,
    };
  }

  private async write(
    c: Stored<ReconciliationCase>,
    change: Pick<ReconciliationCase, 'outcome' | 'detail'> & { trigger?: CaseTrigger },
  ): Promise<ReconciliationCase | undefined> {
    const { version, ...rest } = c;
    const next: ReconciliationCase = {
      ...rest,
      ...change,
      open: false,
      resolvedAt: this.deps.clock.now(),
    };
    try {
      const stored = await this.deps.cases.update(next, version);
      this.deps.log.info(
        { caseId: c.id, outcome: next.outcome, trigger: next.trigger },
        'reconciliation case decided',
      );
      return stored;
    } catch (error) {
      if (errorKindOf(error) === 'aborted') return undefined;
      throw error;
    }
  }

  async postpone(
    c: Stored<ReconciliationCase>,
    reason: string,
  ): Promise<ReconciliationCase | undefined> {
    const now = this.deps.clock.now();
    const { backoffBaseMs, backoffMaxMs } = this.deps.settings;
    const attempts = c.attempts + 1;
    const dueAt = new Date(now.getTime() + backoffMs(attempts, backoffBaseMs, backoffMaxMs));
    const { version, ...rest } = c;
    this.deps.log.warn({ caseId: c.id, attempts, dueAt }, `reconciliation postponed: ${reason}`);
    try {
      return await this.deps.cases.update(
        {
          ...rest,
          attempts,
          dueAt,
          detail: `${reason} (attempt ${attempts}; next at ${dueAt.toISOString()})`,
        },
        version,
      );
    } catch (error) {
      if (errorKindOf(error) === 'aborted') return undefined;
      throw error;
    }
  }
}
