import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import {
  ConnectorServiceClient,
  OrderActionType,
  type CreateBookingResponse,
  type GetAvailabilityResponse,
} from '@marquee/proto/partner/v1';
import type { PartnerConnector } from '../app/ports.js';

type Booking = Awaited<ReturnType<PartnerConnector['createBooking']>>;
type Availability = Awaited<ReturnType<PartnerConnector['availability']>>;

/** A CreateBooking request of the port's input; the channel is always INTERNET. */
const bookingRequest = (input: Parameters<PartnerConnector['createBooking']>[0]) => ({
  eventId: input.eventId,
  cartId: input.cartId,
  lines: input.lines.map((line) => ({
    areaId: line.areaId,
    priceLevelId: line.priceLevelId,
    priceTypeId: line.priceTypeId,
    quantity: line.quantity,
    seatIds: line.seatIds,
    accessCode: line.accessCode,
  })),
  language: input.language,
  channelType: 'INTERNET',
});

/** The connector's booking as the port's: its token, expiry and held tickets. */
const bookingOf = (answer: CreateBookingResponse): Booking => ({
  inventoryToken: answer.inventoryToken,
  expiresAt: answer.expiresAt ?? new Date(),
  tickets: answer.tickets.map((t) => ({
    ticketId: t.ticketId,
    areaId: t.areaId,
    section: t.section,
    row: t.row,
    seat: t.seat,
    priceLevelId: t.priceLevelId,
    priceTypeId: t.priceTypeId,
    faceValueMinor: Number(t.price?.amountMinor ?? 0),
  })),
});

/** The connector's live availability as the port's, seats included when asked for. */
const availabilityOf = (answer: GetAvailabilityResponse): Availability => ({
  observedAt: answer.observedAt ?? new Date(),
  areas: answer.areas.map((a) => ({
    areaId: a.areaId,
    levelId: a.levelId,
    sectionId: a.sectionId,
    priceLevelId: a.priceLevelId,
    generalAdmission: a.generalAdmission,
    available: a.available,
    unavailable: a.unavailable,
    seats: a.availableSeats.map((s) => ({ id: s.id, row: s.row, number: s.number })),
  })),
});

/** An OrderAction request (print, rollback, cancel) on the partner's order. */
const orderAction = (
  input: { eventId: string; inventoryOrderId: string; orderId: string },
  action: OrderActionType,
  ticketIds: string[],
) => ({
  eventId: input.eventId,
  inventoryOrderId: input.inventoryOrderId,
  orderId: input.orderId,
  action,
  language: '',
  channelType: 'INTERNET',
  printMessages: [],
  ticketIds,
});

/**
 * 3p-connector's ConnectorService as cart's PartnerConnector port. Errors arrive as application
 * errors with the connector's kind (`resource_exhausted` sold out, `unavailable`, ...).
 */
export function createConnectorClient(
  address: string,
  options: { deadlineMs: number; logger: Logger },
): PartnerConnector & { close(): void } {
  const client = createGrpcClient(ConnectorServiceClient, address, options);
  return {
    async createBooking(input) {
      return bookingOf(await callUnary(client, 'createBooking', bookingRequest(input)));
    },
    async releaseBooking(eventId, inventoryToken) {
      await callUnary(client, 'releaseBooking', { eventId, inventoryToken });
    },
    async createOrder(input) {
      const answer = await callUnary(client, 'createOrder', {
        eventId: input.eventId,
        inventoryToken: input.inventoryToken,
        orderId: input.orderId,
        ticketsAmount: { amountMinor: input.ticketsAmountMinor, currency: input.currency },
        ticketsQuantity: input.ticketsQuantity,
        paymentMethodType: input.paymentMethodType,
        deliveryMethodType: input.deliveryMethodType,
        channelType: 'INTERNET',
      });
      return { inventoryOrderId: answer.inventoryOrderId };
    },
    async availability(input) {
      const answer = await callUnary(client, 'getAvailability', {
        eventId: input.eventId,
        levelId: input.levelId ?? '',
        sectionId: input.sectionId ?? '',
        withSeats: input.withSeats,
      });
      return availabilityOf(answer);
    },
    async printOrder(input) {
      const action =
        input.action === 'PRINT'
          ? OrderActionType.ORDER_ACTION_TYPE_PRINT
          : OrderActionType.ORDER_ACTION_TYPE_ROLLBACK_PRINT;
      await callUnary(client, 'orderAction', orderAction(input, action, []));
    },
    async cancelTickets(input) {
      const action = OrderActionType.ORDER_ACTION_TYPE_CANCEL;
      await callUnary(client, 'orderAction', orderAction(input, action, [...input.ticketIds]));
    },
    close: () => client.close(),
  };
}
