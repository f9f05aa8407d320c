import {
  ORDERS_DEFAULT_PAGE_SIZE,
  ORDERS_MAX_PAGE_SIZE,
  type BookingRequest,
  type OrderActionRequest,
  type OrderRequest,
} from '@marquee/partner-api';
import { opt } from '../../adapters/partner-shapes.js';
import type {
  AvailabilityQuery,
  BookingInput,
  ConfirmInput,
  ListEventsQuery,
  OrderActionInput,
  OrdersQuery,
} from '../../app/requests.js';
import { Err, invalid } from '../../domain/errors.js';
import {
  checkChannel,
  checkDeliveryMethod,
  checkLanguage,
  checkPaymentMethod,
  parseAction,
  parseAmount,
  parseDateTime,
  parseDetail,
  parsePageNumber,
  parsePageSize,
  parseSort,
} from './parse.js';

/**
 * The 3P API's query strings and bodies as the use cases' inputs. The HTTP schemas have checked
 * their structure (400 id 1); these check the values the API types as plain strings, each with
 * its error id, in the order the API has always checked them, and build typed inputs.
 */

const MAX_ORDERS_PERIOD_MS = 31 * 24 * 3600 * 1000;

/** `GET /events?venue&last_modification&size&page&sort`. */
export function listEventsQueryOf(query: {
  venue: string;
  last_modification: string;
  size?: string;
  page?: string;
  sort?: string;
}): ListEventsQuery {
  return {
    since: parseDateTime(query.last_modification, 'last_modification'),
    size: parsePageSize(query.size),
    page: parsePageNumber(query.page),
    sort: parseSort(query.sort),
    venueId: query.venue,
  };
}

/** `GET /events/{id}/availability?level_id&section_id&detail`: both of level and section, or neither. */
export function availabilityQueryOf(
  eventId: string,
  query: { level_id?: string; section_id?: string; detail?: string },
): AvailabilityQuery {
  if ((query.level_id === undefined) !== (query.section_id === undefined))
    throw invalid(Err.SYNTAX_ERROR, 'give both level_id and section_id, or neither');
  const detail = parseDetail(query.detail);
  return {
    eventId,
    detail,
    ...(query.level_id !== undefined && query.section_id !== undefined
      ? { place: { levelId: query.level_id, sectionId: query.section_id } }
      : {}),
  };
}

/** `POST /bookings`. Seats named by id: in one area, as many as the quantity, none twice. */
export function bookingInputOf(request: BookingRequest['request']): BookingInput {
  checkLanguage(request.language);
  checkChannel(request.channel_info.channel_type);
  for (const line of request.tickets) {
    if (line.seat_ids === undefined) continue;
    if (line.area_id === undefined)
      throw invalid(Err.SYNTAX_ERROR, 'seat_ids need the area_id they are in');
    if (line.seat_ids.length !== line.quantity)
      throw invalid(Err.SYNTAX_ERROR, 'seat_ids must name as many seats as quantity');
    if (new Set(line.seat_ids).size !== line.seat_ids.length)
      throw invalid(Err.SYNTAX_ERROR, 'seat_ids must not repeat a seat');
  }
  return {
    eventId: request.event_id,
    language: request.language,
    channelType: request.channel_info.channel_type,
    ...opt('externalReference', request.external_reference),
    lines: request.tickets.map((line) => ({
      priceTypeId: line.price_type_id,
      quantity: line.quantity,
      ...opt('areaId', line.area_id),
      ...opt('priceLevelId', line.price_level_id),
      ...opt('seatIds', line.seat_ids && [...line.seat_ids]),
      ...opt('accessCode', line.access_code),
    })),
  };
}

/** `POST /orders`. */
export function confirmInputOf(request: OrderRequest['request']): ConfirmInput {
  checkChannel(request.channel_info.channel_type);
  checkLanguage(request.language);
  checkPaymentMethod(request.payment_info.payment_method_type);
  checkDeliveryMethod(request.delivery_info.delivery_method_type);
  return {
    token: request.inventory_token,
    ticketsAmountMinor: parseAmount(request.order_info.tickets_amount),
    ticketsQuantity: request.order_info.tickets_quantity,
    ...opt('externalOrderId', request.order_info.external_order_id),
    paymentMethodType: request.payment_info.payment_method_type,
    deliveryMethodType: request.delivery_info.delivery_method_type,
    channelType: request.channel_info.channel_type,
  };
}

/** `POST /orders/{inventory_order}`. */
export function orderActionInputOf(
  orderId: string,
  request: OrderActionRequest['request'],
): OrderActionInput {
  const action = parseAction(request.action);
  checkChannel(request.channel_info.channel_type);
  checkLanguage(request.language);
  return {
    orderId,
    action,
    channelType: request.channel_info.channel_type,
    ...opt('ticketIds', request.tickets && [...request.tickets]),
  };
}

/**
 * `GET /orders?inventory_token` or `?event_id&start&end`, with `size` and `page`: a period of at
 * most 31 days, `end` after `start` (else 400 id 213).
 */
export function ordersQueryOf(query: {
  inventory_token?: string;
  event_id?: string;
  start?: string;
  end?: string;
  size?: string;
  page?: string;
}): OrdersQuery {
  const size = parsePageSize(query.size, {
    size: ORDERS_DEFAULT_PAGE_SIZE,
    max: ORDERS_MAX_PAGE_SIZE,
  });
  const page = parsePageNumber(query.page);
  if (query.inventory_token !== undefined)
    return { size, page, inventoryToken: query.inventory_token };
  if (query.event_id === undefined || query.start === undefined || query.end === undefined)
    throw invalid(Err.SYNTAX_ERROR, 'give inventory_token, or event_id with start and end');
  const start = parseDateTime(query.start, 'start');
  const end = parseDateTime(query.end, 'end');
  if (!(start < end) || end.getTime() - start.getTime() > MAX_ORDERS_PERIOD_MS)
    throw invalid(Err.INVALID_LAST_MODIFICATION, 'end must follow start, at most 31 days after it');
  return { size, page, eventId: query.event_id, start, end };
}
