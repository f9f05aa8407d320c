import type { CartChannel } from './cart.js';
import type { ShippingOption } from './shipping.js';

export type OrderStatus = 'CONFIRMED' | 'CANCELLED';

export type CancelReason = 'requested' | 'event-cancelled' | 'reconciliation' | 'payment-reversed';

/** One sold ticket. */
export interface OrderTicket {
  /** The partner's ticket id (sandbox: `<cart id>-<n>`). */
  ticketId: string;
  areaId: string;
  section: string;
  row: string;
  seat: string;
  priceLevelId: string;
  priceTypeId: string;
  faceValueMinor: number;
  generalAdmission: boolean;
}

/** An order as the platform sees it: written once at commit, then only its status changes. */
export interface Order {
  /** Platform order id (the partner's idempotency key of the confirmation). */
  id: string;
  /** Short id shown to the buyer. */
  orderNumber: string;
  cartId: string;
  appId: string;
  channel: CartChannel;
  fanId?: string;
  eventId: string;
  partnerId: string;
  sandbox: boolean;
  inventoryToken: string;
  /** The partner's order id (`''` in the sandbox). */
  inventoryOrderId: string;
  status: OrderStatus;
  currency: string;
  tickets: OrderTicket[];
  merchandiseMinor: number;
  feeMinor: number;
  taxMinor: number;
  deliveryMinor: number;
  grandMinor: number;
  delivery: ShippingOption;
  paymentId: string;
  customerEmail: string;
  thirdPartyAccountId: string;
  secureEntryEnabled: boolean;
  /** Hex SHA-256 of the order token. */
  tokenSha256: string;
  confirmedAt: Date;
  cancelledAt?: Date;
  cancelReason?: CancelReason;
  cancelDetail?: string;
  /** A resale order: the partner's ticket ids of the seller's order that this order replaces. */
  resoldTicketIds?: string[];
  /** A resale order: the seller's order. */
  resoldFromOrderId?: string;
  /** Last print action recorded at the partner. */
  printed?: 'PRINT' | 'ROLLBACK_PRINT';
}

const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/**
 * A short order number people can read out: `MQ-` and 8 characters without look-alikes (0/O, 1/I),
 * from 8 random bytes given by the caller (the domain stays free of randomness).
 */
export function orderNumberFrom(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < 8; i += 1) out += ALPHABET[(bytes[i] ?? 0) % ALPHABET.length];
  return `MQ-${out.slice(0, 4)}-${out.slice(4)}`;
}
