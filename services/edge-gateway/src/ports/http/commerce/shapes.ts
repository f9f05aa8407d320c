import type {
  CartDelivery,
  CartOrder,
  GetEventOffersResponse,
  OfferCharge,
  ShoppingCart,
} from '@marquee/proto/cart/v1';
import type { Money } from '@marquee/proto/common/v1';
import { decimal } from './money.js';

/**
 * The commerce API's answers (offers, cart, deliveries, purchase) rendered from cart's
 * CommerceService messages. Amounts are decimal strings in the event's currency.
 */

export const COMMERCE_BASE = '/commerce/v2';

const refs = (type: string, ids: readonly string[]) => ({
  data: ids.map((id) => ({ id, type })),
});
const iso = (date: Date | undefined) => (date ? { value: date.toISOString() } : undefined);
const amount = (money: Money | undefined, currency: string) =>
  decimal(money?.amountMinor ?? 0, money?.currency || currency);

const charge = (c: OfferCharge, currency: string) => ({
  value: amount(c.value, currency),
  label: c.label,
  type: c.type,
});

/** The `start` and `end` of a sales window, each when given. */
const window = (start: Date | undefined, end: Date | undefined) => ({
  ...(start ? { start: iso(start)!.value } : {}),
  ...(end ? { end: iso(end)!.value } : {}),
});

type EventOffer = GetEventOffersResponse['offers'][number];

/** One offered price per offer and price zone, with the areas of that zone. */
function offeredPrices(answer: GetEventOffersResponse) {
  const { currency } = answer;
  const offersHref = `${COMMERCE_BASE}/events/${answer.eventId}/offers.json`;
  return answer.offers.flatMap((offer) =>
    offer.prices.map((price) => ({
      id: `${offer.id}.${price.priceZoneId}`,
      type: 'offered-prices' as const,
      attributes: { currency, value: amount(price.value, currency) },
      relationships: {
        offers: refs('offers', [offer.id]),
        priceZones: refs('price-zones', [price.priceZoneId]),
        areas: refs(
          'areas',
          answer.areas.filter((a) => a.priceZoneIds.includes(price.priceZoneId)).map((a) => a.id),
        ),
      },
      _links: { self: { href: offersHref } },
    })),
  );
}

function toOffer(offer: EventOffer, answer: GetEventOffersResponse) {
  const { currency } = answer;
  return {
    id: offer.id,
    type: 'offers' as const,
    attributes: {
      name: offer.name,
      description: offer.description,
      rank: offer.rank,
      offerDetails: { link: '', linkText: '', text: offer.description },
      offerType: offer.offerType,
      currency: offer.currency || currency,
      ...window(offer.start, offer.end),
      prices: offer.prices.map((price) => ({
        priceZone: price.priceZoneId,
        value: amount(price.value, currency),
        total: amount(price.total, currency),
        fees: price.fees.map((c) => charge(c, currency)),
        taxes: price.taxes.map((c) => charge(c, currency)),
      })),
      limit: {
        min: offer.limit?.min ?? 1,
        max: offer.limit?.max ?? 0,
        sellableQty: String(offer.limit?.sellableQty ?? 0),
        multiples: offer.limit?.multiples ?? 1,
        maxAccessibleSeats: offer.limit?.maxAccessibleSeats ?? 0,
        maxCompanionSeatsPerAccessibleSeat: offer.limit?.maxCompanionSeatsPerAccessibleSeat ?? 0,
      },
    },
    relationships: {
      areas: refs('areas', offer.areaIds),
      priceZones: refs('price-zones', offer.priceZoneIds),
      offerSets: refs('offer-sets', []),
      passwords: refs('passwords', offer.passwordIds),
      products: refs('products', [answer.eventId]),
    },
  };
}

function toArea(area: GetEventOffersResponse['areas'][number]) {
  return {
    id: area.id,
    type: 'areas' as const,
    attributes: {
      rank: area.rank,
      name: area.name,
      description: area.description,
      areaType: (['LEVEL', 'SECTION', 'AREA'].includes(area.areaType) ? area.areaType : 'AREA') as
        'LEVEL' | 'SECTION' | 'AREA',
    },
    relationships: {
      areas: refs('areas', []),
      offers: refs('offers', area.offerIds),
      priceZones: refs('price-zones', area.priceZoneIds),
    },
  };
}

function toPassword(password: GetEventOffersResponse['passwords'][number]) {
  return {
    id: password.id,
    type: 'passwords' as const,
    attributes: {
      name: password.name,
      type: 'password',
      text: password.text,
      link: '',
      textLabel: 'Password',
      linkLabel: '',
      exclusive: password.exclusive,
      ...window(password.start, password.end),
      prompts: [{ id: 'displayId', text: password.text || 'Enter the password' }],
    },
    relationships: { offers: refs('offers', password.offerIds) },
    metadata: { offerIds: password.offerIds },
  };
}

/** The price zones, areas and passwords the offers name. */
function offersEmbedded(answer: GetEventOffersResponse) {
  const { currency } = answer;
  return {
    priceZones: {
      data: answer.priceZones.map((zone) => ({
        id: zone.id,
        type: 'price-zones' as const,
        attributes: { currency: zone.currency || currency, name: zone.name },
        relationships: {
          offers: refs('offers', zone.offerIds),
          areas: refs('areas', zone.areaIds),
        },
      })),
    },
    areas: { data: answer.areas.map(toArea) },
    passwords: { data: answer.passwords.map(toPassword) },
    attributesRefs: { data: [] },
    holds: { data: [] },
  };
}

function offersMetadata(metadata: GetEventOffersResponse['metadata']) {
  return {
    eventMapping: {
      source: { name: metadata?.sourceName ?? '', id: metadata?.sourceId ?? '' },
      id: metadata?.mappedId ?? '',
      type: metadata?.mappedType ?? '',
    },
    accessibleSeatingEnabled: metadata?.accessibleSeatingEnabled ?? false,
    rollupFacilityFee: metadata?.rollupFacilityFee ?? false,
    rollupServiceCharge: metadata?.rollupServiceCharge ?? false,
  };
}

export function offersResult(answer: GetEventOffersResponse) {
  return {
    limits: { max: answer.limitMax },
    prices: { data: offeredPrices(answer) },
    offers: answer.offers.map((offer) => toOffer(offer, answer)),
    _embedded: offersEmbedded(answer),
    metadata: offersMetadata(answer.metadata),
    debug: [] as string[],
  };
}

const STATES: Record<string, string> = {
  CART_STATUS_PENDING: 'pending',
  CART_STATUS_HELD: 'held',
  CART_STATUS_PAID: 'paid',
  CART_STATUS_COMMITTED: 'purchased',
  CART_STATUS_RELEASED: 'released',
  CART_STATUS_EXPIRED: 'expired',
  CART_STATUS_FAILED: 'failed',
};

/** Charge types that are taxes; the rest of a line's charges (but its face value) are fees. */
const isTax = (type: string) => type === 'tax';

type Cart = NonNullable<ShoppingCart['cart']>;
type TicketItem = Cart['ticketItems'][number];

/** One item group per ticket line of an item: the price per item, its fees and its taxes. */
function itemGroup(
  shopping: ShoppingCart,
  lineId: number,
  index: number,
  t: TicketItem['tickets'][number],
) {
  const currency = shopping.cart?.currency ?? '';
  const charges = t.charges.filter((c) => c.type !== 'face_value');
  const face = t.charges.find((c) => c.type === 'face_value');
  const line = (c: (typeof charges)[number]) => ({
    label: c.type,
    amount: amount(c.price, currency),
    type: c.type,
  });
  return {
    type: 'ticket',
    metadata: { type: 'item-group', lineItem: String(lineId) },
    id: `${lineId}.${index + 1}`,
    quantity: t.quantity,
    currency,
    perItemPrice: amount(face?.price, currency),
    fees: charges.filter((c) => !isTax(c.type)).map(line),
    // Charges that are taxes, then the tax the cart charges on top of each fee (`tax` of the
    // charge): the item's price, fees and taxes add up to what the cart charges per item.
    taxes: [
      ...charges.filter((c) => isTax(c.type)).map(line),
      ...charges
        .filter((c) => !isTax(c.type) && (c.tax?.amountMinor ?? 0) !== 0)
        .map((c) => ({ label: `${c.type} tax`, amount: amount(c.tax, currency), type: 'tax' })),
    ],
    offer:
      shopping.offers.find((o) => o.priceTypeId === t.id && o.priceLevelId === t.priceLevelId)
        ?.id ?? '',
  };
}

function itemDetail(item: TicketItem, groupId: string) {
  return {
    type: item.generalAdmission ? 'general-admission' : 'seats',
    metadata: { type: 'item-detail', itemGroup: groupId },
    section: item.section,
    row: item.row,
    startSeat: item.startSeat,
    endSeat: item.endSeat,
    ga: item.generalAdmission,
  };
}

/** The item groups of the cart's tickets, each with the detail of its item. */
function cartItems(shopping: ShoppingCart) {
  const groups: ReturnType<typeof itemGroup>[] = [];
  const details: ReturnType<typeof itemDetail>[] = [];
  for (const item of shopping.cart?.ticketItems ?? []) {
    item.tickets.forEach((t, index) => {
      const g = itemGroup(shopping, item.id, index, t);
      groups.push(g);
      details.push(itemDetail(item, g.id));
    });
  }
  return { groups, details };
}

/** The order processing fee and, charged with it (in `totals.taxes`), its tax. */
function processingCharges(cart: Cart | undefined, currency: string) {
  const processing = cart?.processingFee;
  const processingTax = cart?.processingFeeTax;
  return {
    fees:
      processing && processing.amountMinor !== 0
        ? [
            {
              label: 'Order processing fee',
              amount: amount(processing, currency),
              type: 'processing',
            },
          ]
        : [],
    taxes:
      processing && processingTax && processingTax.amountMinor !== 0
        ? [
            {
              label: 'Tax on order processing fee',
              amount: amount(processingTax, currency),
              type: 'tax',
            },
          ]
        : [],
  };
}

function cartTotals(totals: Cart['totals'], currency: string) {
  return {
    currency,
    price: amount(totals?.merchandise, currency),
    fees: amount(totals?.fee, currency),
    taxes: amount(totals?.tax, currency),
    deliveries: amount(totals?.delivery, currency),
    upsells: amount(totals?.upsell, currency),
    total: amount(totals?.grand, currency),
  };
}

function cartPayment(p: Cart['payments'][number], currency: string) {
  return {
    id: p.id,
    type: p.type,
    amount: amount(p.amount, currency),
    currency: p.amount?.currency || currency,
    card: {
      issuer: p.issuer,
      number: p.maskedNumber,
      expireMonth: p.expireMonth,
      expireYear: p.expireYear,
    },
  };
}

/** The cart's delivery, order and failure, each when it has one. */
function cartOutcome(cart: Cart | undefined, currency: string) {
  return {
    ...(cart?.delivery
      ? {
          delivery: {
            id: cart.delivery.id,
            deliveryType: deliveryType(cart.delivery.serviceLevel),
            fee: amount(cart.delivery.totals?.grand, currency),
          },
        }
      : {}),
    payments: (cart?.payments ?? []).map((p) => cartPayment(p, currency)),
    ...(cart?.order
      ? {
          order: {
            id: cart.order.orderId,
            orderNumber: cart.order.orderNumber,
            status: cart.order.status === 'ORDER_STATUS_CANCELLED' ? 'cancelled' : 'confirmed',
          },
        }
      : {}),
    ...(cart?.failureCode
      ? { failure: { code: cart.failureCode, message: cart.failureMessage } }
      : {}),
  };
}

/** The event, product and offers the cart names. */
function cartEmbedded(shopping: ShoppingCart, productId: string, offerIds: string[]) {
  const cart = shopping.cart;
  return {
    events: cart?.eventId
      ? [
          {
            id: cart.eventId,
            type: 'events' as const,
            attributes: { name: shopping.eventName },
            relationships: { products: refs('products', [productId]) },
          },
        ]
      : [],
    products: productId
      ? [
          {
            id: productId,
            type: 'products' as const,
            attributes: { name: shopping.eventName, productType: 'TICKETS' },
            relationships: {
              events: refs('events', cart?.eventId ? [cart.eventId] : []),
              offers: refs('offers', offerIds),
            },
          },
        ]
      : [],
    offers: shopping.offers.map((o) => ({
      id: o.id,
      type: 'offers' as const,
      attributes: { name: o.name, description: o.description },
    })),
  };
}

export function cartResult(shopping: ShoppingCart, httpStatus: number) {
  const cart = shopping.cart;
  const currency = cart?.currency ?? '';
  const productId = shopping.productId || cart?.eventId || '';
  const { groups, details } = cartItems(shopping);
  const offerIds = [...new Set(groups.map((g) => g.offer).filter((o) => o !== ''))];
  const status = cart?.status ?? 'CART_STATUS_UNSPECIFIED';
  return {
    cart: {
      id: cart?.id ?? '',
      type: 'carts' as const,
      attributes: {
        state: STATES[status] ?? 'unknown',
        polling: status === 'CART_STATUS_PENDING',
        ...(shopping.pollingCallbackUrl ? { pollingCallbackUrl: shopping.pollingCallbackUrl } : {}),
        holdTimeSec: cart?.holdTimeSeconds ?? 0,
        reservations:
          groups.length === 0
            ? []
            : [
                {
                  ...(cart?.expiresAt ? { expiration: cart.expiresAt.toISOString() } : {}),
                  itemGroups: groups,
                  itemDetails: details,
                  reservation: cart?.id ?? '',
                  product: productId,
                },
              ],
        ...processingCharges(cart, currency),
        totals: cartTotals(cart?.totals, currency),
        ...cartOutcome(cart, currency),
      },
      relationships: {
        events: refs('events', cart?.eventId ? [cart.eventId] : []),
        products: refs('products', productId ? [productId] : []),
        offers: refs('offers', offerIds),
      },
    },
    _embedded: cartEmbedded(shopping, productId, offerIds),
    status: String(httpStatus),
  };
}

/** The partner cart's service levels in the commerce API's delivery types. */
export function deliveryType(serviceLevel: string): string {
  const level = serviceLevel.toUpperCase();
  if (level === 'ETICKET' || level === 'DIGITAL' || level === 'MOBILE') return 'DIGITAL';
  return level || 'DIGITAL';
}

export function deliveriesResult(deliveries: readonly CartDelivery[], currency: string) {
  return {
    deliveries: deliveries.map((d) => {
      const cur = d.fee?.currency || currency;
      const fee = d.fee?.amountMinor ?? 0;
      const tax = d.tax?.amountMinor ?? 0;
      return {
        id: d.id,
        type: 'delivery' as const,
        attributes: {
          deliveryType: d.deliveryType,
          displayRank: String(d.displayRank),
          selected: d.selected,
          totals: {
            fee: decimal(fee, cur),
            tax: decimal(tax, cur),
            grand: decimal(fee + tax, cur),
            currency: cur,
          },
          description: { long: d.descriptionLong, short: d.descriptionShort },
          restrictions:
            d.restrictedOfferIds.length > 0
              ? [
                  {
                    type: 'product-offer-restriction',
                    id: `${d.id}-offers`,
                    offers: d.restrictedOfferIds,
                  },
                ]
              : [],
        },
        relationships: {
          deliveryOptions: refs(
            'deliveryOption',
            d.options.map((o) => o.id),
          ),
        },
      };
    }),
    _embedded: {
      deliveryOptions: deliveries.flatMap((d) =>
        d.options.map((o) => ({
          id: o.id,
          type: 'deliveryOption' as const,
          attributes: {
            requiresAddress: o.requiresAddress,
            requiresIdentification: o.requiresIdentification,
            description: { long: o.descriptionLong, short: o.descriptionShort },
            ...(o.acceptedCountries.length > 0
              ? {
                  acceptedCountries: o.acceptedCountries.map((country) => ({
                    id: country,
                    type: 'accepted-delivery-country' as const,
                    attributes: { country },
                  })),
                }
              : {}),
            ...(o.excludedCountries.length > 0
              ? {
                  excludedCountries: o.excludedCountries.map((country) => ({
                    id: country,
                    type: 'excluded-delivery-country' as const,
                    attributes: { country },
                  })),
                }
              : {}),
          },
        })),
      ),
    },
  };
}

export function purchaseResult(input: {
  cart: ShoppingCart | undefined;
  order: CartOrder | undefined;
  redemptionToken: string;
  ticketCount: number;
}) {
  const order = input.order;
  const cart = input.cart?.cart;
  const currency = order?.grandTotal?.currency || cart?.currency || '';
  const orderId = order?.orderId ?? '';
  return {
    confirmation: {
      id: order?.orderNumber || orderId,
      type: 'order-confirmations' as const,
      relationships: { orders: refs('orders', orderId ? [orderId] : []) },
    },
    _embedded: {
      orders: {
        data: order
          ? [
              {
                id: orderId,
                type: 'orders' as const,
                attributes: {
                  orderNumber: order.orderNumber,
                  status: order.status === 'ORDER_STATUS_CANCELLED' ? 'cancelled' : 'confirmed',
                  cartId: cart?.id ?? '',
                  eventId: cart?.eventId ?? '',
                  currency,
                  total: amount(order.grandTotal, currency),
                  ticketCount: input.ticketCount,
                  ...(order.confirmedAt ? { confirmedAt: order.confirmedAt.toISOString() } : {}),
                },
                redemption: { url: order.redemptionUrl, token: input.redemptionToken },
              },
            ]
          : [],
      },
    },
  };
}
