import type { CaseOutcome } from './case.js';
import { hasLiveBooking, isPaidOrder, type Transaction } from './transaction.js';

/** State of a transaction at the partner. */
export type PartnerStatus =
  'BOOKED' | 'RELEASED' | 'EXPIRED' | 'CONFIRMED' | 'PRINTED' | 'CANCELLED' | 'UNKNOWN';

/** A booking or order as the partner reports it (through the connector). */
export interface PartnerTransaction {
  partnerId: string;
  eventId: string;
  inventoryToken: string;
  inventoryOrderId?: string;
  status: PartnerStatus;
  cartId?: string;
  orderId?: string;
  createdAt?: Date;
  updatedAt?: Date;
}

/** What to do at the partner. */
export type PartnerAction =
  | { kind: 'release-booking'; eventId: string; inventoryToken: string }
  | { kind: 'cancel-order'; eventId: string; inventoryOrderId: string; orderId?: string };

export interface Decision {
  outcome: Exclude<CaseOutcome, 'OPEN' | 'ORDER_CONFIRMED'>;
  actions: PartnerAction[];
  /** Paid on the platform but missing or not confirmed at the partner (outcome MANUAL). */
  missingAtPartner: boolean;
  /** Active partner transactions that agree with the platform. */
  matched: number;
  /** Partner transactions too recent to judge (their platform event may still be on its way). */
  inFlight: number;
  detail: string;
}

/** References a transaction is known by; any one equal field ties a partner transaction to it. */
export interface TransactionRefs {
  cartId?: string | undefined;
  orderId?: string | undefined;
  inventoryToken?: string | undefined;
  inventoryOrderId?: string | undefined;
}

const same = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && a !== '' && a === b;

/** The partner transactions that belong to the transaction known by `refs`. */
export function belongsTo(refs: TransactionRefs, p: PartnerTransaction): boolean {
  return (
    same(refs.cartId, p.cartId) ||
    same(refs.orderId, p.orderId) ||
    same(refs.inventoryToken, p.inventoryToken) ||
    same(refs.inventoryOrderId, p.inventoryOrderId)
  );
}

const isOrder = (p: PartnerTransaction) => p.status === 'CONFIRMED' || p.status === 'PRINTED';

function isPlatformOrder(t: Transaction, p: PartnerTransaction): boolean {
  return same(t.orderId, p.orderId) || same(t.inventoryOrderId, p.inventoryOrderId);
}

/**
 * The decision table, for one platform transaction (or none) and the partner transactions that
 * belong to it. Partner transactions last changed after `settledBefore` are not judged (the
 * platform's own event about them may still be on its way) but still count as the partner's side
 * of a paid order.
 *
 * | partner                | platform                                  | decision                      |
 * | ---------------------- | ----------------------------------------- | ----------------------------- |
 * | BOOKED                 | live hold of that token                   | consistent                    |
 * | BOOKED                 | paid order of that token                  | MANUAL (not confirmed there)  |
 * | BOOKED                 | anything else (no hold, expired, other)   | release → BOOKING_RELEASED    |
 * | CONFIRMED / PRINTED    | paid order with that order id             | consistent                    |
 * | CONFIRMED / PRINTED    | anything else (none, cancelled, held)     | cancel → ORDER_CANCELLED      |
 * | RELEASED/EXPIRED/CANC. | any                                       | nothing there                 |
 * | no order               | paid order                                | MANUAL (missing at partner)   |
 * | nothing                | no paid order                             | CONSISTENT                    |
 */
export function decide(input: {
  platform: Transaction | undefined;
  partner: readonly PartnerTransaction[];
  now: Date;
  settledBefore: Date;
}): Decision {
  const { platform, partner } = input;
  const tally = judgePartner(input);
  const { actions, notes, matched, inFlight } = tally;
  const paid = isPaidOrder(platform);
  const paidOrderFound =
    paid &&
    platform !== undefined &&
    partner.some((p) => isOrder(p) && isPlatformOrder(platform, p));
  if (paid && platform && !paidOrderFound) {
    const where = tally.notConfirmed
      ? `its booking ${tally.notConfirmed.inventoryToken} is still only BOOKED at the partner`
      : `the partner has no confirmed order for it`;
    notes.unshift(
      `order ${platform.orderId ?? '?'} was paid on the platform (confirmed ${platform.confirmedAt?.toISOString() ?? '?'}) but ${where}: an operator must re-issue or refund it`,
    );
    return {
      outcome: 'MANUAL',
      actions,
      missingAtPartner: true,
      matched,
      inFlight,
      detail: notes.join('; '),
    };
  }
  const outcome = actions.some((a) => a.kind === 'cancel-order')
    ? 'ORDER_CANCELLED'
    : actions.length > 0
      ? 'BOOKING_RELEASED'
      : 'CONSISTENT';
  if (outcome === 'CONSISTENT') {
    notes.push(
      matched > 0
        ? 'the partner and the platform agree'
        : 'nothing is held or sold at the partner for this transaction',
    );
  }
  return { outcome, actions, missingAtPartner: false, matched, inFlight, detail: notes.join('; ') };
}

/** What judging the partner's transactions one by one found. */
interface Tally {
  actions: PartnerAction[];
  notes: string[];
  matched: number;
  inFlight: number;
  /** The partner's booking of a paid order that it never confirmed. */
  notConfirmed?: PartnerTransaction;
}

/** Judges each partner transaction against the platform's (the table's rows per partner status). */
function judgePartner(input: Parameters<typeof decide>[0]): Tally {
  const { platform, partner, now, settledBefore } = input;
  const tally: Tally = { actions: [], notes: [], matched: 0, inFlight: 0 };
  const paid = isPaidOrder(platform);
  for (const p of partner) {
    const changedAt = p.updatedAt ?? p.createdAt;
    const settled = changedAt === undefined || changedAt <= settledBefore;
    if (p.status === 'BOOKED') {
      if (paid && same(platform?.inventoryToken, p.inventoryToken)) {
        tally.notConfirmed = p;
      } else if (
        hasLiveBooking(platform, now) &&
        same(platform?.inventoryToken, p.inventoryToken)
      ) {
        tally.matched++;
      } else if (!settled) {
        tally.inFlight++;
      } else {
        tally.actions.push({
          kind: 'release-booking',
          eventId: p.eventId,
          inventoryToken: p.inventoryToken,
        });
        tally.notes.push(
          `released orphan booking ${p.inventoryToken}${orphanReason(platform, now)}`,
        );
      }
    } else if (isOrder(p)) {
      if (paid && platform && isPlatformOrder(platform, p)) {
        tally.matched++;
      } else if (!settled) {
        tally.inFlight++;
      } else if (p.inventoryOrderId) {
        tally.actions.push({
          kind: 'cancel-order',
          eventId: p.eventId,
          inventoryOrderId: p.inventoryOrderId,
          ...(p.orderId ? { orderId: p.orderId } : {}),
        });
        tally.notes.push(
          `cancelled orphan order ${p.inventoryOrderId}${orphanReason(platform, now)}`,
        );
      }
    }
  }
  return tally;
}

function orphanReason(platform: Transaction | undefined, now: Date): string {
  if (!platform) return ' (unknown to the platform)';
  switch (platform.phase) {
    case 'cancelled':
      return ' (the platform cancelled the order)';
    case 'held':
      return platform.expiresAt && platform.expiresAt <= now
        ? ' (the platform hold expired)'
        : ' (the platform holds another booking)';
    case 'confirmed':
      return ' (not the booking or order the platform sold)';
    default:
      return ' (the platform holds no booking)';
  }
}
