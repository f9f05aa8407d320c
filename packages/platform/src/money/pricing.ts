/**
 * The platform's fees on top of a face value, as every cart charges them and every API that shows a
 * price displays them: one function for both, so a price shown is the price charged. Amounts are
 * integer minor units of the cart's currency; percentages are basis points (1 bp = 0.01 %), rounded
 * half up per ticket. The schedule is configured once (the cart's `CART_*_FEE_*` variables, read by
 * the cart and by the edge for display).
 */
export interface FeeSchedule {
  /** Service fee per ticket, in basis points of its face value. */
  serviceFeeBps: number;
  /** Lowest service fee per ticket (minor units), for cheap tickets; 0 = none. */
  serviceFeeMinMinor: number;
  /** Order processing fee, once per cart (minor units); 0 = none. */
  processingFeeMinor: number;
  /** Tax on fees (service and processing), in basis points of the fee. Delivery prices include tax. */
  feeTaxBps: number;
}

export const DEFAULT_FEES: FeeSchedule = {
  serviceFeeBps: 1_000,
  serviceFeeMinMinor: 150,
  processingFeeMinor: 250,
  feeTaxBps: 2_000,
};

/** `round(amount * bps / 10000)` half up, in integers (no floating point on money). */
export const applyBps = (amountMinor: number, bps: number): number =>
  Math.floor((amountMinor * bps + 5_000) / 10_000);

/** Service fee and its tax for one ticket. */
export function ticketFees(
  faceValueMinor: number,
  fees: FeeSchedule,
): { fee: number; tax: number } {
  const fee = Math.max(applyBps(faceValueMinor, fees.serviceFeeBps), fees.serviceFeeMinMinor);
  return { fee, tax: applyBps(fee, fees.feeTaxBps) };
}

/** What one ticket at a face value adds to a cart. */
export interface TicketPrice {
  faceValueMinor: number;
  serviceFeeMinor: number;
  serviceFeeTaxMinor: number;
  /** Face value, service fee and its tax: the per-ticket total an API shows. */
  totalMinor: number;
}

/** The price of one ticket at `faceValueMinor` (a primary face value or a resale price). */
export function ticketPrice(faceValueMinor: number, fees: FeeSchedule): TicketPrice {
  const { fee, tax } = ticketFees(faceValueMinor, fees);
  return {
    faceValueMinor,
    serviceFeeMinor: fee,
    serviceFeeTaxMinor: tax,
    totalMinor: faceValueMinor + fee + tax,
  };
}

/** What a cart with tickets adds once: the processing fee and its tax (0 when there is none). */
export function orderFees(fees: FeeSchedule): {
  processingFeeMinor: number;
  processingFeeTaxMinor: number;
  totalMinor: number;
} {
  const processingFeeMinor = Math.max(0, fees.processingFeeMinor);
  const processingFeeTaxMinor = applyBps(processingFeeMinor, fees.feeTaxBps);
  return {
    processingFeeMinor,
    processingFeeTaxMinor,
    totalMinor: processingFeeMinor + processingFeeTaxMinor,
  };
}
