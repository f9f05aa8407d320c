import { randomBytes } from 'node:crypto';
import { waitFor } from '@marquee/platform/testing';
import type { Stack } from './stack.js';

/**
 * A partner event the platform imports and can sell: a venue and an event on sale in
 * partner-reference's back office, the partner registered with the platform, then waits until
 * discovery finds the imported event and cart sells it. Used by the e2e tier and the benchmarks,
 * outside `expect`: a setup call that fails throws an error with its status and body.
 *
 * The event: one general-admission area (`GA`) of one price level (`PL1`), one price type
 * (`ADULT`, 45.00 EUR unless told otherwise), at most 10 tickets per booking, 30 days from now, in
 * Madrid.
 */

/** The price of the event's one price type (default 45.00 EUR: 4500 minor units). */
export interface PartnerEventPrice {
  /** ISO 4217 code (default `EUR`). */
  currency?: string;
  /** The face value in minor units of `currency`, as the partner's 3P API writes it (default 4500). */
  faceValueMinor?: number;
}

/** A venue of partner-reference's back office and its one manifest. */
export interface PartnerVenue {
  venueId: string;
  manifestId: string;
}

export interface ImportedPartnerEvent extends PartnerVenue {
  /** The platform's id of the event (discovery, `/partners/v1/events/{id}`). */
  eventId: string;
  /** partner-reference's id of the event (its own 3P API, `/v1/events/{id}`). */
  partnerEventId: string;
  /** The platform's id of the registered partner. */
  partnerId: string;
  /** The word in the venue's, the event's and the partner's names, searched in discovery. */
  marker: string;
}

export interface ImportPartnerEventOptions extends PartnerEventPrice {
  /** An app's key: discovery and the partner cart are asked with it. */
  apiKey: string;
  /** A word unique to the run, in every name (default: random). */
  marker?: string;
  /** Places of the general-admission area (default 50). */
  capacity?: number;
  /** Tickets with rotating barcodes (default false). */
  secureEntry?: boolean;
  /**
   * Where the platform reaches the partner: an origin whose `/v1` is the 3P API and whose
   * `/oauth/token` issues tokens (default partner-reference itself; e.g. a proxy of the test).
   */
  partnerOrigin?: string;
  /** How long the imported event may take to appear in discovery (default 30 s). */
  discoveryTimeoutMs?: number;
  /** How long cart may take to sell the event once discovery has it (default 60 s). */
  sellableTimeoutMs?: number;
}

/** The origin of partner-reference (its back office is `/admin/v1`, its 3P API `/v1`). */
export const partnerOriginOf = (sut: Stack): string => sut.partner.baseUrl.replace(/\/v1$/, '');

/**
 * POSTs a JSON body with an admin token and returns the answer's JSON; any status but 201
 * (created) throws with the status and the body. partner-reference's back office takes its own
 * token (`partnerAdminToken`), the platform's admin API the platform's (`adminToken`).
 */
async function adminCall<T>(token: string, url: string, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201)
    throw new Error(`POST ${new URL(url).pathname} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/** A venue in partner-reference's back office: one manifest of one general-admission area. */
export async function createPartnerVenue(
  sut: Stack,
  options: { name: string; capacity: number },
): Promise<PartnerVenue> {
  const created = await adminCall<{ venue_id: string; manifest_ids: string[] }>(
    sut.partnerAdminToken,
    `${partnerOriginOf(sut)}/admin/v1/venues`,
    {
      name: options.name,
      city: 'Madrid',
      country: 'ES',
      timezone: 'Europe/Madrid',
      manifests: [
        {
          name: 'Standing',
          levels: [{ id: 'FLOOR', name: 'Floor', position: 0 }],
          sections: [{ id: 'PIT', name: 'Pit' }],
          price_levels: [{ id: 'PL1', name: 'Standing' }],
          areas: [
            {
              id: 'GA',
              name: 'Pit',
              level_id: 'FLOOR',
              section_id: 'PIT',
              price_level_id: 'PL1',
              general_admission: true,
              capacity: options.capacity,
            },
          ],
        },
      ],
    },
  );
  return { venueId: created.venue_id, manifestId: created.manifest_ids[0]! };
}

/** An event on sale in a venue of `createPartnerVenue`; returns partner-reference's id of it. */
export async function createPartnerEvent(
  sut: Stack,
  venue: PartnerVenue,
  options: { name: string; secureEntry?: boolean } & PartnerEventPrice,
): Promise<string> {
  const start = new Date(Date.now() + 30 * 86_400_000);
  const created = await adminCall<{ event_id: string }>(
    sut.partnerAdminToken,
    `${partnerOriginOf(sut)}/admin/v1/events`,
    {
      venue_id: venue.venueId,
      manifest_id: venue.manifestId,
      text_infos: [{ lang: 'en-us', name: options.name, description: 'test event' }],
      genre_info: [{ genre_id: 'ROCK', genre_name: 'Rock' }],
      date_time: start.toISOString(),
      date_time_properties: { date_hidden: false, time_hidden: false },
      timezone: 'Europe/Madrid',
      currency: options.currency ?? 'EUR',
      maximum_tickets_quantity: 10,
      ...(options.secureEntry ? { secure_entry: true } : {}),
      organization_info: { promoter_id: 'FR123', promoter_name: 'E2E Promotions' },
      visibility: { default_visibility: 'VISIBLE' },
      status: 'ON_SALE',
      price_levels: [{ id: 'PL1', text_infos: [{ lang: 'en-us', name: 'Standing' }] }],
      price_types: [{ id: 'ADULT', regular: true, text_infos: [{ lang: 'en-us', name: 'Adult' }] }],
      face_value_prices: [
        {
          price_period: {
            id: 'P1',
            start_date_time: new Date(Date.now() - 86_400_000).toISOString(),
            end_date_time: start.toISOString(),
          },
          prices: [
            {
              price_level_id: 'PL1',
              price_type_id: 'ADULT',
              amount: String(options.faceValueMinor ?? 4500),
            },
          ],
        },
      ],
    },
  );
  return created.event_id;
}

/**
 * Registers partner-reference with the platform (`POST /admin/v1/partners`), which starts the
 * import of `venueIds`; returns the platform's id of the partner.
 */
export async function registerPartner(
  sut: Stack,
  options: { name: string; venueIds: string[]; partnerOrigin?: string },
): Promise<string> {
  const origin = options.partnerOrigin ?? partnerOriginOf(sut);
  const created = await adminCall<{ id: string }>(
    sut.adminToken,
    `${sut.baseUrl}/admin/v1/partners`,
    {
      name: options.name,
      baseUrl: `${origin}/v1`,
      authUrl: `${origin}/oauth/token`,
      clientId: sut.partner.clientId,
      clientSecret: sut.partner.clientSecret,
      venues: options.venueIds,
    },
  );
  return created.id;
}

/**
 * A venue and an event on sale at the partner, the partner registered for that venue, and then
 * the waits: until discovery finds the imported event (by `marker`) and until cart sells it
 * (`GET /partners/v1/events/{id}/availability` answers 200; cart learns the event from
 * `event-changed` on its own consumer, after discovery may). Both waits are bounded and say, on
 * timeout, what the platform answered last.
 *
 * The waits call discovery and the partner cart with `apiKey`, about three times a second at
 * most: an app on the default quota (5 calls a second) should leave a moment before its next call.
 */
export async function importPartnerEvent(
  sut: Stack,
  options: ImportPartnerEventOptions,
): Promise<ImportedPartnerEvent> {
  const marker = options.marker ?? `pe${randomBytes(4).toString('hex')}`;
  const venue = await createPartnerVenue(sut, {
    name: `Hall ${marker}`,
    capacity: options.capacity ?? 50,
  });
  const partnerEventId = await createPartnerEvent(sut, venue, {
    name: `Event ${marker}`,
    secureEntry: options.secureEntry ?? false,
    ...(options.currency ? { currency: options.currency } : {}),
    ...(options.faceValueMinor !== undefined ? { faceValueMinor: options.faceValueMinor } : {}),
  });
  const partnerId = await registerPartner(sut, {
    name: `Partner ${marker}`,
    venueIds: [venue.venueId],
    ...(options.partnerOrigin ? { partnerOrigin: options.partnerOrigin } : {}),
  });
  const key = encodeURIComponent(options.apiKey);
  const eventId = await waitFor(
    async () => {
      const found = await fetch(
        `${sut.baseUrl}/discovery/v2/events.json?apikey=${key}&keyword=${marker}`,
      );
      const text = await found.text();
      if (found.status !== 200) throw new Error(`discovery answered ${found.status}: ${text}`);
      const body = JSON.parse(text) as { _embedded?: { events?: Array<{ id: string }> } };
      return body._embedded?.events?.[0]?.id;
    },
    {
      timeoutMs: options.discoveryTimeoutMs ?? 30_000,
      intervalMs: 300,
      description: `the imported event ${marker} in discovery`,
    },
  );
  await waitFor(
    async () => {
      const answer = await fetch(`${sut.baseUrl}/partners/v1/events/${eventId}/availability`, {
        headers: { 'x-api-key': options.apiKey },
      });
      const text = await answer.text();
      if (answer.status === 200) return true;
      throw new Error(`availability answered ${answer.status}: ${text}`);
    },
    {
      timeoutMs: options.sellableTimeoutMs ?? 60_000,
      intervalMs: 500,
      description: `the event ${eventId} sellable in cart`,
    },
  );
  return { ...venue, eventId, partnerEventId, partnerId, marker };
}

/**
 * Grants an app partner distribution (the partner cart, the order read, secure render) through the
 * admin API, as an operator does for a distributor. Call it before the app's first call: the edge
 * caches a key check for up to 30 s.
 */
export async function grantPartnerDistribution(
  sut: Pick<Stack, 'baseUrl' | 'adminToken'>,
  appId: string,
): Promise<void> {
  await grantAppAccess(sut, appId, { partnerDistribution: true });
}

/**
 * Changes an app's access through the admin API (`PATCH /admin/v1/apps/{id}/access`): partner
 * distribution, the commerce shopping services (`commerceShopping`). Call it before the app's
 * first call: the edge caches a key check for up to 30 s.
 */
export async function grantAppAccess(
  sut: Pick<Stack, 'baseUrl' | 'adminToken'>,
  appId: string,
  access: { partnerDistribution?: boolean; commerceShopping?: boolean },
): Promise<void> {
  const response = await fetch(`${sut.baseUrl}/admin/v1/apps/${encodeURIComponent(appId)}/access`, {
    method: 'PATCH',
    headers: {
      authorization: `Bearer ${sut.adminToken}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(access),
  });
  if (response.status !== 200)
    throw new Error(
      `changing app ${appId}'s access to ${JSON.stringify(access)} failed: ${response.status} ${await response.text()}`,
    );
}
