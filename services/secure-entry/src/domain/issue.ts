import type { Charge, Delivery, EntryOrder, RenderType } from './model.js';

/** `order-confirmed` in secure-entry's terms (mapped from the protobuf by the Kafka port). */
export interface ConfirmedOrder {
  orderId: string;
  eventId: string;
  partnerId: string;
  appId: string;
  tokenHash: string;
  customerEmail: string;
  thirdPartyAccountId: string;
  /** The buyer's fan id; `''` for an order without a fan (the partner cart). */
  fanId: string;
  /** Set when the fan was deleted before the order arrived: the contact fields are blank. */
  contactErasedAt?: Date;
  secureEntry: boolean;
  sandbox: boolean;
  delivery: Delivery;
  confirmedAt: Date;
  tickets: Array<{
    partnerTicketId: string;
    section: string;
    row: string;
    seat: string;
    unitPriceMinor: number;
    currency: string;
  }>;
  feesMinor: number;
  taxesMinor: number;
  deliveryMinor: number;
  currency: string;
  /** Partner ticket ids of the tickets a resale order replaces (voided for their old owner). */
  replaces: string[];
}

/** The ticket of a confirmed order before its barcode and secret are drawn. */
export interface PlannedTicket {
  id: string;
  partnerTicketId: string;
  section: string;
  row: string;
  seat: string;
  generalAdmission: boolean;
  renderType: RenderType;
  charges: Charge[];
}

/** Platform ticket id of the n-th ticket (0-based) of an order: deterministic, so retries converge. */
export const ticketIdOf = (orderId: string, index: number) => `${orderId}-t${index + 1}`;

/** `amount` spread over `count` parts in minor units, the remainder on the first parts. */
export function split(amount: number, count: number): number[] {
  if (count <= 0) return [];
  const base = Math.floor(amount / count);
  const rest = amount - base * count;
  return Array.from({ length: count }, (_, i) => base + (i < rest ? 1 : 0));
}

/**
 * One ticket per seat. Secure-entry events get rotating tickets; every other order of the partner
 * cart gets static `barcode` tickets (QR only), so the order read works for every order. Fees and
 * taxes are spread evenly over the tickets, the delivery charge goes on the first.
 */
export function planTickets(order: ConfirmedOrder): PlannedTicket[] {
  const count = order.tickets.length;
  const fees = split(order.feesMinor, count);
  const taxes = split(order.taxesMinor, count);
  return order.tickets.map((t, i) => {
    const generalAdmission = t.seat === '' && t.row === '';
    const currency = t.currency || order.currency;
    const charges: Charge[] = [
      {
        description: 'Ticket price',
        type: 'TICKET',
        subType: 'FACE_VALUE',
        amountMinor: t.unitPriceMinor,
        currency,
      },
    ];
    if (fees[i]) {
      charges.push({
        description: 'Service fee',
        type: 'FEE',
        subType: 'SERVICE',
        amountMinor: fees[i]!,
        currency: order.currency || currency,
      });
    }
    if (taxes[i]) {
      charges.push({
        description: 'Tax',
        type: 'TAX',
        subType: 'TAX',
        amountMinor: taxes[i]!,
        currency: order.currency || currency,
      });
    }
    if (i === 0 && order.deliveryMinor) {
      charges.push({
        description: order.delivery.description || 'Delivery',
        type: 'DELIVERY',
        subType: order.delivery.serviceLevel || 'DELIVERY',
        amountMinor: order.deliveryMinor,
        currency: order.currency || currency,
      });
    }
    return {
      id: ticketIdOf(order.orderId, i),
      partnerTicketId: t.partnerTicketId,
      // General admission tickets show `GA` where a seated ticket shows its row and seat: the
      // secure render call requires all five attributes.
      section: t.section || 'GA',
      row: generalAdmission ? 'GA' : t.row,
      seat: generalAdmission ? 'GA' : t.seat,
      generalAdmission,
      renderType: order.secureEntry ? 'rotating_symbology' : 'barcode',
      charges,
    };
  });
}

/** The order record of a confirmed order, before any device has read it. */
export function orderRecord(
  order: ConfirmedOrder,
  ticketIds: string[],
): Omit<EntryOrder, 'version'> {
  return {
    id: order.orderId,
    tokenHash: order.tokenHash,
    appId: order.appId,
    eventId: order.eventId,
    partnerId: order.partnerId,
    customerEmail: order.customerEmail,
    thirdPartyAccountId: order.thirdPartyAccountId,
    ...(order.fanId ? { fanId: order.fanId } : {}),
    ...(order.contactErasedAt ? { contactErasedAt: order.contactErasedAt } : {}),
    delivery: order.delivery,
    sandbox: order.sandbox,
    secureEntry: order.secureEntry,
    confirmedAt: order.confirmedAt,
    ticketIds,
    voided: false,
    ...(order.replaces.length ? { replaces: order.replaces } : {}),
  };
}

/** `display_id`: the barcode with all but its last four digits masked. */
export const displayIdOf = (barcode: string) =>
  `${'X'.repeat(Math.max(0, barcode.length - 4))}${barcode.slice(-4)}`;
