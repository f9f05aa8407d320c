/**
 * Shipping options. Regions: the US set for US, CA, AU and NZ, the GB set for GB and IE, the
 * international set anywhere else. ETICKET (mobile or print-at-home) is always first and free;
 * events with secure entry offer ETICKET only (their tickets are rotating barcodes on a phone).
 * Fees are in minor units of the cart's currency and include tax.
 */
export type ServiceLevel = 'ETICKET' | 'MAIL' | 'AIRMAIL' | '2DAYPM' | 'WILLCALL';

export interface ShippingOption {
  id: string;
  carrier: string;
  serviceLevel: ServiceLevel;
  requiresAddress: boolean;
  descriptionLong: string;
  descriptionShort: string;
  eta: string;
  feeMinor: number;
  rank: number;
}

export type ShippingRegion = 'US' | 'GB' | 'INTL';

const ETICKET: ShippingOption = {
  id: 'ETICKET',
  carrier: 'Marquee',
  serviceLevel: 'ETICKET',
  requiresAddress: false,
  descriptionLong: 'Mobile ticket in the app, or print at home; available right after purchase.',
  descriptionShort: 'eTicket',
  eta: 'Immediately after purchase',
  feeMinor: 0,
  rank: 1,
};

const TABLE: Record<ShippingRegion, ShippingOption[]> = {
  US: [
    ETICKET,
    {
      id: 'US-USPS-MAIL',
      carrier: 'USPS',
      serviceLevel: 'MAIL',
      requiresAddress: true,
      descriptionLong: 'Standard mail, tracked; allow 7 to 10 business days.',
      descriptionShort: 'Standard mail',
      eta: '7-10 business days',
      feeMinor: 500,
      rank: 2,
    },
    {
      id: 'US-UPS-2DAY',
      carrier: 'UPS',
      serviceLevel: '2DAYPM',
      requiresAddress: true,
      descriptionLong: 'UPS 2nd Day Air, delivered by the end of the second business day.',
      descriptionShort: 'UPS 2nd day',
      eta: '2 business days',
      feeMinor: 2_500,
      rank: 3,
    },
    {
      id: 'US-WILLCALL',
      carrier: 'Box office',
      serviceLevel: 'WILLCALL',
      requiresAddress: false,
      descriptionLong: 'Collect at the venue box office with the card used and photo id.',
      descriptionShort: 'Will call',
      eta: 'At the venue on the day',
      feeMinor: 0,
      rank: 4,
    },
  ],
  GB: [
    ETICKET,
    {
      id: 'GB-ROYALMAIL',
      carrier: 'Royal Mail',
      serviceLevel: 'MAIL',
      requiresAddress: true,
      descriptionLong: 'Royal Mail first class; allow 3 to 5 working days.',
      descriptionShort: 'First class post',
      eta: '3-5 working days',
      feeMinor: 295,
      rank: 2,
    },
    {
      id: 'GB-BOXOFFICE',
      carrier: 'Box office',
      serviceLevel: 'WILLCALL',
      requiresAddress: false,
      descriptionLong: 'Collect at the venue box office with the booking reference.',
      descriptionShort: 'Box office collection',
      eta: 'At the venue on the day',
      feeMinor: 0,
      rank: 3,
    },
  ],
  INTL: [
    ETICKET,
    {
      id: 'INTL-AIRMAIL',
      carrier: 'Postal airmail',
      serviceLevel: 'AIRMAIL',
      requiresAddress: true,
      descriptionLong: 'International airmail, tracked; allow 10 to 15 working days.',
      descriptionShort: 'Airmail',
      eta: '10-15 working days',
      feeMinor: 900,
      rank: 2,
    },
    {
      id: 'INTL-WILLCALL',
      carrier: 'Box office',
      serviceLevel: 'WILLCALL',
      requiresAddress: false,
      descriptionLong: 'Collect at the venue box office with the booking reference.',
      descriptionShort: 'Box office collection',
      eta: 'At the venue on the day',
      feeMinor: 0,
      rank: 3,
    },
  ],
};

/** The region of a two-letter country code. */
export function regionOf(countryCode: string): ShippingRegion {
  const code = countryCode.trim().toUpperCase();
  if (['US', 'CA', 'AU', 'NZ'].includes(code)) return 'US';
  if (['GB', 'IE', 'UK'].includes(code)) return 'GB';
  return 'INTL';
}

/** Options for a region (`''` = the event's country), ETICKET first, by rank. */
export function shippingOptions(input: {
  region: string;
  eventCountry: string;
  secureEntry: boolean;
}): ShippingOption[] {
  if (input.secureEntry) return [ETICKET];
  return TABLE[regionOf(input.region || input.eventCountry)].map((o) => ({ ...o }));
}

/** Every option id a cart of the event may choose (any region). */
export function findShippingOption(id: string, secureEntry: boolean): ShippingOption | undefined {
  if (secureEntry) return id === ETICKET.id ? { ...ETICKET } : undefined;
  for (const options of Object.values(TABLE)) {
    const found = options.find((o) => o.id === id);
    if (found) return { ...found };
  }
  return undefined;
}

export const DEFAULT_SHIPPING = ETICKET;

/** The partner's delivery method type of an option (3P API `delivery_method_type`). */
export function deliveryMethodType(option: ShippingOption | undefined): 'PH' | 'DS' | 'PU' {
  switch (option?.serviceLevel) {
    case 'MAIL':
    case 'AIRMAIL':
    case '2DAYPM':
      return 'DS';
    case 'WILLCALL':
      return 'PU';
    default:
      return 'PH';
  }
}
