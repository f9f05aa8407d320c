import { moneyToDecimal as toDecimal } from '@marquee/platform/money';
import {
  type CartRecord,
  type Charge,
  type EventAvailability,
  type LineTotals,
  type Money,
  type ShippingOption,
  type TicketOffer,
} from '../../../app/partner-cart.js';

/**
 * The partner cart's JSON from the cart service's records. Amounts become numbers in the major unit
 * of the cart's currency (`@marquee/platform/money`: ISO 4217 exponents).
 */

const lineTotals = (t: LineTotals, currency: string) => ({
  currency_code: currency,
  fee: toDecimal(t.fee),
  grand: toDecimal(t.grand),
  merchandise: toDecimal(t.merchandise),
  tax: toDecimal(t.tax),
});

const charge = (c: Charge) => ({
  price: toDecimal(c.price),
  type: c.type,
  quantity: c.quantity,
  tax: toDecimal(c.tax),
});

/**
 * The resale fields of a ticket item that comes from a resale listing: where the seats are, the
 * seller's notes, the average original price per ticket and the day the seller had the tickets.
 */
const resaleFields = (line: CartRecord['ticketItems'][number]) =>
  line.resale
    ? {
        listing_details: { location: line.resale.location },
        listing_notes: { seller_notes: line.resale.sellerNotes },
        averageOriginalTotalValue: toDecimal(line.resale.averageOriginalTotalValue),
        inHandDate: line.resale.inHandDate,
      }
    : {};

const shippingOption = (s: ShippingOption, currency: string) => ({
  id: s.id,
  carrier: s.carrier,
  service_level: s.serviceLevel,
  requires_address: s.requiresAddress,
  description: { long: s.descriptionLong, short: s.descriptionShort, eta: s.eta },
  totals: lineTotals(s.totals, currency),
});

export const renderShippingOptions = (options: ShippingOption[], currency: string) => ({
  shipping_options: options.map((o) =>
    shippingOption(o, o.totals.grand?.currency ?? o.totals.fee?.currency ?? currency),
  ),
});

/** The processing item's totals: the fee, its tax, and both (what the cart charges for it). */
function processingTotals(fee: Money, tax: Money | undefined): LineTotals {
  if (!tax || tax.amountMinor === 0) return { fee, grand: fee };
  return {
    fee,
    tax,
    grand: { amountMinor: fee.amountMinor + tax.amountMinor, currency: fee.currency },
  };
}

/** Seconds of hold left now: from the hold's end when known, else as the service counted it. */
export function holdTimeLeft(cart: CartRecord, now: number): number {
  if (cart.expiresAt === undefined) return Math.max(0, cart.holdTimeSeconds);
  return Math.max(0, Math.ceil((cart.expiresAt.getTime() - now) / 1000));
}

/** A ticket line of the cart: its tickets and charges, totals, seats and transfer. */
function ticketLine(cart: CartRecord, line: CartRecord['ticketItems'][number]) {
  const currency = cart.currency;
  return {
    type: 'ticket' as const,
    id: line.id,
    view: {},
    areas: [{ description: line.areaDescription, id: line.areaId }],
    tickets: line.tickets.map((t) => ({
      description: t.description,
      id: t.id,
      quantity: t.quantity,
      inventory_type: t.inventoryType,
      charges: t.charges.map(charge),
    })),
    ga: line.generalAdmission,
    is_ga: line.generalAdmission,
    totals: lineTotals(line.totals, currency),
    event_id: cart.eventId,
    num_seats: String(line.quantity),
    x_num: String(line.quantity),
    'x-num': String(line.quantity),
    row: line.row,
    section: line.section,
    start_seat_number: line.startSeat,
    end_seat_number: line.endSeat,
    // Tickets of secure-entry events live in the buyer's account and move from there.
    transfer: cart.secureEntryEnabled
      ? { eligible: true, explanation: 'Secure-entry tickets can be transferred from the account.' }
      : { eligible: false, explanation: 'Tickets of this event cannot be transferred.' },
    quantity: line.quantity,
    ...resaleFields(line),
  };
}

function payment(p: CartRecord['payments'][number]) {
  return {
    id: p.id,
    payment_id: p.paymentId,
    type: p.type,
    amount: toDecimal(p.amount),
    card: {
      expire_month: p.expireMonth,
      expire_year: p.expireYear,
      issuer: p.issuer,
      number: p.maskedNumber,
    },
  };
}

/** The cart result (`{cart_id, cart}`). */
export function renderCart(cart: CartRecord, now: number) {
  const currency = cart.currency;
  const tickets = cart.ticketItems.map((line) => ticketLine(cart, line));
  const processing = cart.processingFee
    ? [
        {
          type: 'processing' as const,
          totals: lineTotals(processingTotals(cart.processingFee, cart.processingFeeTax), currency),
        },
      ]
    : [];
  const delivery = cart.delivery
    ? [
        {
          type: 'delivery' as const,
          ...shippingOption(cart.delivery, currency),
          rank: cart.delivery.rank,
        },
      ]
    : [];
  const t = cart.totals;
  return {
    cart_id: cart.id,
    cart: {
      items: [...tickets, ...processing, ...delivery],
      totals: {
        currency_code: currency,
        delivery: toDecimal(t.delivery),
        fee: toDecimal(t.fee),
        grand: toDecimal(t.grand),
        merchandise: toDecimal(t.merchandise),
        tax: toDecimal(t.tax),
        unpaid: toDecimal(t.unpaid),
        upsell: toDecimal(t.upsell),
      },
      hold_time: holdTimeLeft(cart, now),
      language: cart.language,
      agreements: cart.agreements.map((a) => ({
        name: a.name,
        locale: a.locale,
        text: a.text,
        type: a.type,
        ...(a.agreementUrl ? { agreement_url: a.agreementUrl } : {}),
      })),
      payments: cart.payments.map(payment),
    },
  };
}

/**
 * An offer's charges as the cart makes them: each fee, then its tax as a charge of its own (`tax`,
 * same `fee_type`), so that the face value and the `per ticket` charges add up to what a cart
 * charges per ticket, and the `per order` charges to what it charges once.
 */
const offerCharges = (charges: readonly Charge[]) =>
  charges.flatMap((c) => {
    const fee = {
      type: c.type,
      amount: toDecimal(c.price),
      quantity: c.quantity,
      fee_type: c.feeType,
    };
    if (!c.tax || c.tax.amountMinor === 0) return [fee];
    return [
      fee,
      { type: 'tax', amount: toDecimal(c.tax), quantity: c.quantity, fee_type: c.feeType },
    ];
  });

const offer = (o: TicketOffer, currency: string) => ({
  ticketTypeId: o.ticketTypeId,
  priceLevelId: o.priceLevelId,
  name: o.name,
  currency: o.faceValue?.currency || currency,
  faceValue: toDecimal(o.faceValue),
  charges: offerCharges(o.charges),
  protected: o.protected,
});

/**
 * Availability as `event {..., tickets[]}`: one `tickets` entry per price level, with the areas of
 * that level (`inventory`: available seats by section and row; a general-admission area or one
 * read by counts only is an entry without seats) and the offers at that level.
 */
export function renderAvailability(a: EventAvailability, now: number) {
  const levels = new Map<string, { areas: EventAvailability['areas']; offers: TicketOffer[] }>();
  const level = (id: string) => {
    let entry = levels.get(id);
    if (!entry) levels.set(id, (entry = { areas: [], offers: [] }));
    return entry;
  };
  for (const area of a.areas) level(area.priceLevelId).areas.push(area);
  for (const o of a.offers) level(o.priceLevelId).offers.push(o);

  const tickets = [...levels].map(([priceLevelId, { areas, offers }]) => {
    const inventory: {
      section: string;
      row: string;
      seats: string[];
      areas: { id: string; level_id: string; ga: boolean; available: number }[];
    }[] = [];
    for (const area of areas) {
      const ref = {
        id: area.areaId,
        level_id: area.levelId,
        ga: area.generalAdmission,
        available: area.available,
      };
      if (area.availableSeats.length === 0) {
        inventory.push({ section: area.sectionId, row: '', seats: [], areas: [ref] });
        continue;
      }
      const rows = new Map<string, string[]>();
      for (const seat of area.availableSeats) {
        const seats = rows.get(seat.row) ?? [];
        seats.push(seat.number);
        rows.set(seat.row, seats);
      }
      for (const [row, seats] of rows) {
        inventory.push({ section: area.sectionId, row, seats, areas: [ref] });
      }
    }
    return {
      priceLevelId,
      available: areas.reduce((sum, area) => sum + area.available, 0),
      total: areas.reduce((sum, area) => sum + area.available + area.unavailable, 0),
      inventory,
      offers: offers.map((o) => offer(o, a.currency)),
    };
  });

  return {
    event: {
      id: a.eventId,
      // The platform sells any quantity the partner holds; no single-seat rule is applied.
      restrictSingle: false,
      eventTicketLimit: a.ticketLimit,
      onsale: a.onSale,
      offsale: a.offsaleAt !== undefined && a.offsaleAt.getTime() <= now,
      ...(a.onsaleAt ? { onsaleDate: a.onsaleAt.toISOString() } : {}),
      ...(a.offsaleAt ? { offsaleDate: a.offsaleAt.toISOString() } : {}),
      secureTixEnabled: a.secureEntryEnabled,
      currency: a.currency,
      totalAvailable: a.totalAvailable,
      ...(a.observedAt ? { observedAt: a.observedAt.toISOString() } : {}),
      tickets,
    },
  };
}
