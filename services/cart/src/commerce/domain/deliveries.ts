import { regionOf, type ShippingOption } from '../../domain/shipping.js';

/**
 * The commerce deliveries of a cart from cart's shipping options. Each delivery has one option
 * (how the buyer completes it). Rules: digital delivery and will-call go anywhere (will call needs
 * photo identification); post and courier deliver only within the region whose options they are:
 * the US set to US, CA, AU and NZ, the GB set to GB and IE, the international set anywhere.
 */

export interface CommerceDelivery {
  id: string;
  deliveryType: string;
  displayRank: number;
  feeMinor: number;
  descriptionLong: string;
  descriptionShort: string;
  selected: boolean;
  option: {
    id: string;
    requiresAddress: boolean;
    requiresIdentification: boolean;
    descriptionLong: string;
    descriptionShort: string;
    acceptedCountries: string[];
  };
}

const REGION_COUNTRIES: Record<string, string[]> = {
  US: ['US', 'CA', 'AU', 'NZ'],
  GB: ['GB', 'IE'],
  INTL: [],
};

/** The commerce API's delivery type of a service level (ETICKET is DIGITAL). */
export const deliveryTypeOf = (serviceLevel: string): string =>
  serviceLevel === 'ETICKET' ? 'DIGITAL' : serviceLevel;

export function commerceDeliveries(input: {
  options: readonly ShippingOption[];
  eventCountry: string;
  selectedId: string | undefined;
}): CommerceDelivery[] {
  const region = regionOf(input.eventCountry);
  return input.options.map((o) => ({
    id: o.id,
    deliveryType: deliveryTypeOf(o.serviceLevel),
    displayRank: o.rank,
    feeMinor: o.feeMinor,
    descriptionLong: o.descriptionLong,
    descriptionShort: o.descriptionShort,
    selected: o.id === input.selectedId,
    option: {
      id: `${o.id}-1`,
      requiresAddress: o.requiresAddress,
      requiresIdentification: o.serviceLevel === 'WILLCALL',
      descriptionLong: `${o.carrier}: ${o.eta}`,
      descriptionShort: o.carrier,
      acceptedCountries: o.requiresAddress ? (REGION_COUNTRIES[region] ?? []) : [],
    },
  }));
}
