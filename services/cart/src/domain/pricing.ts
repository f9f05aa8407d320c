import type { HeldTicket, ResaleDetails } from './booking.js';
import type { ShippingOption } from './shipping.js';
import { orderFees, ticketFees, ticketPrice, type FeeSchedule } from '@marquee/platform/money';

// The fee schedule and the per-ticket price are the platform's (packages/platform/src/money/
// pricing.ts): the same functions price a cart here and show prices in every API.
export {
  applyBps,
  DEFAULT_FEES,
  orderFees,
  ticketFees,
  ticketPrice,
  type FeeSchedule,
  type TicketPrice,
} from '@marquee/platform/money';

export interface Charge {
  type: 'face_value' | 'service' | 'processing';
  /** Amount per unit. */
  priceMinor: number;
  quantity: number;
  /** Tax per unit, on top of `priceMinor`. */
  taxMinor: number;
  feeType: 'per ticket' | 'per order';
}

export interface Totals {
  merchandise: number;
  fee: number;
  tax: number;
  grand: number;
}

/** Tickets of one price type (and price level) within a line. */
export interface PricedTicketGroup {
  priceTypeId: string;
  priceLevelId: string;
  quantity: number;
  faceValueMinor: number;
  charges: Charge[];
}

/** One line of the cart: tickets of one area, section and row. */
export interface PricedLine {
  /** From 1. */
  lineNumber: number;
  areaId: string;
  areaDescription: string;
  section: string;
  row: string;
  seats: string[];
  generalAdmission: boolean;
  quantity: number;
  groups: PricedTicketGroup[];
  totals: Totals;
  /**
   * A line of resale tickets: the listing's details and the average of what its tickets cost at
   * their original sale (face value plus the per-ticket fees of this cart's schedule).
   */
  resale?: ResaleDetails & { averageOriginalTotalMinor: number };
}

export interface CartTotals extends Totals {
  delivery: number;
  upsell: number;
  unpaid: number;
}

export interface PricedCart {
  lines: PricedLine[];
  /** The order processing fee, when there is one. */
  processing?: Charge;
  totals: CartTotals;
}

const seatOrder = (a: string, b: string): number => {
  const na = Number(a);
  const nb = Number(b);
  return Number.isFinite(na) && Number.isFinite(nb) ? na - nb : a.localeCompare(b);
};

/** The resale details of a line whose tickets come from a resale listing. */
function resaleOfLine(
  tickets: readonly HeldTicket[],
  fees: FeeSchedule,
): Pick<PricedLine, 'resale'> {
  const resold = tickets.filter((t) => t.resale);
  const first = resold[0]?.resale;
  if (!first) return {};
  const sum = resold.reduce(
    (s, t) => s + ticketPrice(t.resale!.originalFaceValueMinor, fees).totalMinor,
    0,
  );
  return { resale: { ...first, averageOriginalTotalMinor: Math.round(sum / resold.length) } };
}

/** Held tickets of one line grouped by (price type, price level, face value), not yet charged. */
function groupsOf(tickets: readonly HeldTicket[]): PricedTicketGroup[] {
  const groups = new Map<string, PricedTicketGroup>();
  for (const t of tickets) {
    const key = [t.priceTypeId, t.priceLevelId, t.faceValueMinor].join('\u0000');
    const group = groups.get(key);
    if (group) group.quantity += 1;
    else
      groups.set(key, {
        priceTypeId: t.priceTypeId,
        priceLevelId: t.priceLevelId,
        quantity: 1,
        faceValueMinor: t.faceValueMinor,
        charges: [],
      });
  }
  return [...groups.values()];
}

/** Charges each group its face value and service fee per ticket; answers the line's totals. */
function chargeGroups(groups: readonly PricedTicketGroup[], fees: FeeSchedule): Totals {
  const totals: Totals = { merchandise: 0, fee: 0, tax: 0, grand: 0 };
  for (const group of groups) {
    const { fee, tax } = ticketFees(group.faceValueMinor, fees);
    group.charges = [
      {
        type: 'face_value',
        priceMinor: group.faceValueMinor,
        quantity: group.quantity,
        taxMinor: 0,
        feeType: 'per ticket',
      },
      {
        type: 'service',
        priceMinor: fee,
        quantity: group.quantity,
        taxMinor: tax,
        feeType: 'per ticket',
      },
    ];
    totals.merchandise += group.faceValueMinor * group.quantity;
    totals.fee += fee * group.quantity;
    totals.tax += tax * group.quantity;
  }
  totals.grand = totals.merchandise + totals.fee + totals.tax;
  return totals;
}

/** One line (the tickets of an area, section and row) priced, numbered from 1. */
function priceLine(tickets: readonly HeldTicket[], index: number, fees: FeeSchedule): PricedLine {
  const groups = groupsOf(tickets);
  const totals = chargeGroups(groups, fees);
  const first = tickets[0]!;
  return {
    lineNumber: index + 1,
    areaId: first.areaId,
    areaDescription: first.areaDescription,
    section: first.section,
    row: first.row,
    seats: tickets
      .map((t) => t.seat)
      .filter((s) => s !== '')
      .sort(seatOrder),
    generalAdmission: first.generalAdmission,
    quantity: tickets.length,
    groups,
    totals,
    ...resaleOfLine(tickets, fees),
  };
}

/**
 * Prices a cart: held tickets grouped into lines (area, section, row), a service fee and its tax per
 * ticket, the processing fee and its tax once per cart, the chosen delivery, and what payments
 * already cover.
 */
export function priceCart(input: {
  tickets: readonly HeldTicket[];
  fees: FeeSchedule;
  delivery?: ShippingOption | undefined;
  paidMinor?: number;
}): PricedCart {
  const { fees } = input;
  const byLine = new Map<string, HeldTicket[]>();
  for (const ticket of input.tickets) {
    const key = [ticket.areaId, ticket.section, ticket.row].join('\u0000');
    byLine.set(key, [...(byLine.get(key) ?? []), ticket]);
  }
  const lines = [...byLine.values()].map((tickets, index) => priceLine(tickets, index, fees));
  const perOrder = orderFees(fees);
  const processing: Charge | undefined =
    perOrder.processingFeeMinor > 0 && lines.length > 0
      ? {
          type: 'processing',
          priceMinor: perOrder.processingFeeMinor,
          quantity: 1,
          taxMinor: perOrder.processingFeeTaxMinor,
          feeType: 'per order',
        }
      : undefined;
  const sum = (pick: (t: Totals) => number) => lines.reduce((s, l) => s + pick(l.totals), 0);
  const merchandise = sum((t) => t.merchandise);
  const fee = sum((t) => t.fee) + (processing?.priceMinor ?? 0);
  const tax = sum((t) => t.tax) + (processing?.taxMinor ?? 0);
  const delivery = input.delivery?.feeMinor ?? 0;
  const grand = merchandise + fee + tax + delivery;
  return {
    lines,
    ...(processing ? { processing } : {}),
    totals: {
      merchandise,
      fee,
      tax,
      delivery,
      upsell: 0,
      grand,
      unpaid: Math.max(0, grand - (input.paidMinor ?? 0)),
    },
  };
}
