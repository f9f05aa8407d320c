import {
  CHANNEL_TYPES,
  DELIVERY_METHOD_TYPES,
  EVENTS_DEFAULT_PAGE_SIZE,
  EVENTS_MAX_PAGE_SIZE,
  ORDER_ACTIONS,
  PAYMENT_METHOD_TYPES,
} from '@marquee/partner-api';
import type { AvailabilityDetail, EventSort } from '../../app/requests.js';
import type { OrderAction } from '../../domain/booking.js';
import { Err, invalid } from '../../domain/errors.js';

/**
 * Checks of the values the 3P API types as plain strings, each with its own error id (400).
 * Structure (types, required fields, unknown fields) is checked by the HTTP schemas first (id 1).
 */
const LANGUAGE = /^[a-z]{2}-[a-z]{2}$/;
// ISO 8601 with a zone (Z or an offset), seconds optional fraction.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export function checkLanguage(language: string | undefined): void {
  if (language !== undefined && !LANGUAGE.test(language))
    throw invalid(Err.INVALID_LANGUAGE, `language must be a lower-case xx-yy code`);
}

export function checkChannel(channel: string): void {
  if (!(CHANNEL_TYPES as readonly string[]).includes(channel))
    throw invalid(
      Err.INVALID_CHANNEL_TYPE,
      `channel_type must be one of ${CHANNEL_TYPES.join(', ')}`,
    );
}

export function checkPaymentMethod(method: string): void {
  if (!(PAYMENT_METHOD_TYPES as readonly string[]).includes(method))
    throw invalid(
      Err.INVALID_PAYMENT_METHOD_TYPE,
      `payment_method_type must be one of ${PAYMENT_METHOD_TYPES.join(', ')}`,
    );
}

export function checkDeliveryMethod(method: string): void {
  if (!(DELIVERY_METHOD_TYPES as readonly string[]).includes(method))
    throw invalid(
      Err.INVALID_DELIVERY_METHOD_TYPE,
      `delivery_method_type must be one of ${DELIVERY_METHOD_TYPES.join(', ')}`,
    );
}

export function parseAction(action: string): OrderAction {
  if (!(ORDER_ACTIONS as readonly string[]).includes(action))
    throw invalid(Err.INVALID_ACTION, `action must be one of ${ORDER_ACTIONS.join(', ')}`);
  return action as OrderAction;
}

/** A zoned ISO 8601 date-time, else 400 id 213. */
export function parseDateTime(value: string | undefined, name: string): Date {
  const date = value !== undefined && DATE_TIME.test(value) ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime()))
    throw invalid(
      Err.INVALID_LAST_MODIFICATION,
      `${name} must be an ISO 8601 date-time with a zone (e.g. 2026-05-01T19:30:00Z)`,
    );
  return date;
}

/** A page size: digits, 1..max (default when absent), else 400 id 214. */
export function parsePageSize(
  value: string | undefined,
  defaults: { size: number; max: number } = {
    size: EVENTS_DEFAULT_PAGE_SIZE,
    max: EVENTS_MAX_PAGE_SIZE,
  },
): number {
  if (value === undefined) return defaults.size;
  const size = /^[0-9]{1,6}$/.test(value) ? Number(value) : NaN;
  if (!(size >= 1 && size <= defaults.max))
    throw invalid(Err.INVALID_PAGE_SIZE, `size must be a whole number from 1 to ${defaults.max}`);
  return size;
}

/** A page number: digits, 0.., default 0, else 400 id 215. */
export function parsePageNumber(value: string | undefined): number {
  if (value === undefined) return 0;
  const page = /^[0-9]{1,6}$/.test(value) ? Number(value) : NaN;
  if (!(page >= 0)) throw invalid(Err.INVALID_PAGE_NUMBER, 'page must be a whole number from 0');
  return page;
}

/** `name,date` or `date,name`, any letter case; default `DATE,NAME`; else 400 id 205. */
export function parseSort(value: string | undefined): EventSort {
  if (value === undefined) return 'DATE,NAME';
  const sort = value.toUpperCase().replace(/\s+/g, '');
  if (sort !== 'DATE,NAME' && sort !== 'NAME,DATE')
    throw invalid(Err.INVALID_SORT_CRITERIA, 'sort must be name,date or date,name');
  return sort;
}

export function parseDetail(value: string | undefined): AvailabilityDetail {
  if (value === undefined || value === 'overview') return 'overview';
  if (value === 'seats') return 'seats';
  throw invalid(Err.INVALID_AVAILABILITY_LEVEL, 'detail must be overview or seats');
}

/**
 * Minor units as a string of digits, else 400 id 207. Up to 18 digits are taken (as before amounts
 * were numbers): one past `Number.MAX_SAFE_INTEGER` reads inexactly but can never equal a booking's
 * amount (always a safe integer), so it is refused as not matching (309), as it always was.
 */
export function parseAmount(value: string): number {
  if (!/^(0|[1-9][0-9]{0,17})$/.test(value))
    throw invalid(Err.INVALID_ORDER_TOTAL_AMOUNT, 'tickets_amount must be minor units as digits');
  return Number(value);
}
