import type { ErrorKind } from '@marquee/platform/kernel';

/**
 * A deal: a promotional offer attached to one event (the deals search result's `deals[]`; the admin
 * API's `POST /admin/v1/deals`). Deals are records of their own: created, changed and ended
 * through the admin API; an ended deal is kept (terminal state) so its history stays readable.
 */

export const exclusivities = ['EXCLUSIVE', 'NONEXCLUSIVE'] as const;
export type Exclusivity = (typeof exclusivities)[number];

export type DealState = 'active' | 'ended';

export interface Deal {
  id: string;
  eventId: string;
  name: string;
  description: string;
  /** `dealOfferCode`; absent when the deal has none. */
  offerCode?: string;
  exclusivity: Exclusivity;
  state: DealState;
  /** 1 after creation, +1 per change (the store's version). */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The editable fields of a deal. */
export interface DealFields {
  name: string;
  description: string;
  offerCode?: string;
  exclusivity: Exclusivity;
}

/** An error of the deals domain; `kind` is of the platform's error vocabulary. */
export class DealsError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'DealsError';
  }
}

const limits = { name: 200, description: 2000, offerCode: 100 } as const;

/** Trims and checks the editable fields; throws `invalid_argument` naming the first bad one. */
export function validateDealFields(input: {
  name: string;
  description: string;
  offerCode?: string | undefined;
  exclusivity: string;
}): DealFields {
  const name = input.name.trim();
  const description = input.description.trim();
  const offerCode = input.offerCode?.trim() || undefined;
  if (name.length === 0) throw new DealsError('invalid_argument', 'dealName is required');
  if (name.length > limits.name)
    throw new DealsError('invalid_argument', `dealName is longer than ${limits.name} characters`);
  if (description.length === 0)
    throw new DealsError('invalid_argument', 'dealDescription is required');
  if (description.length > limits.description)
    throw new DealsError(
      'invalid_argument',
      `dealDescription is longer than ${limits.description} characters`,
    );
  if (offerCode !== undefined && offerCode.length > limits.offerCode)
    throw new DealsError(
      'invalid_argument',
      `dealOfferCode is longer than ${limits.offerCode} characters`,
    );
  if (!(exclusivities as readonly string[]).includes(input.exclusivity))
    throw new DealsError('invalid_argument', 'exclusivity must be EXCLUSIVE or NONEXCLUSIVE');
  return {
    name,
    description,
    ...(offerCode !== undefined ? { offerCode } : {}),
    exclusivity: input.exclusivity as Exclusivity,
  };
}
