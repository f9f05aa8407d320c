import { createHash } from 'node:crypto';
import type { Ticket } from './model.js';

/**
 * The Apple Wallet pass id of a ticket (`passData.ios.pkPassId` of secure render): 32 hex digits of
 * the SHA-256 of the ticket id. Stable for the ticket across token refreshes and devices, so a
 * wallet updates the pass it holds instead of adding another; a ticket reissued to a resale buyer
 * has a new id and gets a new pass. The ticket id itself is not shown.
 */
export function pkPassIdOf(ticketId: string): string {
  return createHash('sha256').update(`pkpass\u0000${ticketId}`).digest('hex').slice(0, 32);
}

/** One ticket named in a secure render request. */
export interface RenderRequestTicket {
  eventId: string;
  section: string;
  row: string;
  seat: string;
  barcode: string;
}

/** A per-ticket refusal of the secure render call (`error` of the 400 answer). */
export interface RenderRefusal {
  code: number;
  error: string;
}

const REQUIRED: ReadonlyArray<[keyof RenderRequestTicket, string]> = [
  ['eventId', 'eventId'],
  ['section', 'section'],
  ['row', 'row'],
  ['seat', 'seat'],
  ['barcode', 'barcode'],
];

/** The first missing attribute of a requested ticket (`missing.<attribute>.attribute`). */
export function missingAttribute(ticket: RenderRequestTicket): RenderRefusal | undefined {
  for (const [field, name] of REQUIRED) {
    if (!ticket[field] || ticket[field].trim() === '') {
      return { code: 400, error: `missing.${name}.attribute` };
    }
  }
  if (!/^\d{8,32}$/.test(ticket.barcode)) return { code: 400, error: 'invalid.barcode.attribute' };
  return undefined;
}

/** Whether the requested attributes name this ticket (case-insensitive, trimmed). */
export function attributeMismatch(
  request: RenderRequestTicket,
  ticket: Ticket,
): RenderRefusal | undefined {
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  if (!same(request.eventId, ticket.eventId))
    return { code: 409, error: 'mismatch.eventId.attribute' };
  if (!same(request.section, ticket.section))
    return { code: 409, error: 'mismatch.section.attribute' };
  if (!same(request.row, ticket.row)) return { code: 409, error: 'mismatch.row.attribute' };
  if (!same(request.seat, ticket.seat)) return { code: 409, error: 'mismatch.seat.attribute' };
  return undefined;
}
