import { absoluteHttpUrl } from './egress.js';
import { ConnectorError } from './errors.js';

/** Health of a partner as the healthcheck poll last saw it (the proto enum's names, shortened). */
export type HealthState =
  'UNSPECIFIED' | 'HEALTHY' | 'UNAVAILABLE' | 'SYNC_REQUIRED' | 'UNREACHABLE' | 'UNAUTHORIZED';

/**
 * A client secret encrypted at rest (AES-256-GCM): base64 of IV, authentication tag and
 * ciphertext; `kid` names the key that sealed it (absent on secrets sealed before key ids).
 */
export interface EncryptedSecret {
  kid?: string;
  iv: string;
  tag: string;
  data: string;
}

/** A registered partner system. */
export interface Partner {
  id: string;
  version: number;
  name: string;
  /** Name-safe form of `name` (letters, digits, dash): the `source.name` of imported events. */
  slug: string;
  baseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: EncryptedSecret;
  venues: string[];
  health: HealthState;
  healthMessage: string;
  healthCheckedAt: Date | null;
  createdAt: Date;
}

/** Import state of one venue of one partner (id `partnerId/venueId`). */
export interface VenueImportState {
  id: string;
  version: number;
  partnerId: string;
  venueId: string;
  /** Highest `last_modification` imported; the epoch before the first import. */
  watermark: Date;
  lastImportAt: Date | null;
  lastImportEvents: number;
  lastError: string;
}

export const venueImportId = (partnerId: string, venueId: string): string =>
  `${partnerId}/${venueId}`;

export interface Registration {
  name: string;
  baseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  venues: string[];
}

const VENUE_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

function httpUrl(field: string, value: string): string {
  const url = absoluteHttpUrl(field, value);
  if (url.username || url.password)
    throw new ConnectorError('invalid_argument', `${field} must not carry credentials`, { field });
  if (url.search || url.hash)
    throw new ConnectorError('invalid_argument', `${field} must have no query or fragment`, {
      field,
    });
  return url.toString().replace(/\/+$/, '');
}

/** Length in characters (code points), as the API's JSON Schema counts it: an emoji is one. */
const characters = (text: string): number => [...text].length;

/** Checks a registration and gives it in normal form (URLs without a trailing slash, unique venues). */
export function validateRegistration(input: Registration): Registration {
  const name = input.name.trim();
  if (name.length === 0 || characters(name) > 200)
    throw new ConnectorError('invalid_argument', 'name must have 1 to 200 characters', {
      field: 'name',
    });
  const clientId = input.clientId.trim();
  if (clientId.length === 0 || characters(clientId) > 256)
    throw new ConnectorError('invalid_argument', 'client_id must have 1 to 256 characters', {
      field: 'client_id',
    });
  if (input.clientSecret.length === 0 || characters(input.clientSecret) > 512)
    throw new ConnectorError('invalid_argument', 'client_secret must have 1 to 512 characters', {
      field: 'client_secret',
    });
  const venues = [...new Set(input.venues.map((v) => v.trim()))];
  if (venues.length > 500)
    throw new ConnectorError('invalid_argument', 'at most 500 venues', { field: 'venues' });
  for (const venue of venues) {
    if (!VENUE_ID.test(venue))
      throw new ConnectorError(
        'invalid_argument',
        'venues must be partner ids (letters, digits, _ . : -, at most 64)',
        { field: 'venues' },
      );
  }
  return {
    name,
    baseUrl: httpUrl('base_url', input.baseUrl),
    authUrl: httpUrl('auth_url', input.authUrl),
    clientId,
    clientSecret: input.clientSecret,
    venues,
  };
}

/** `Ticket Hub (EU)` → `ticket-hub-eu`: what `source.name` allows (alphanumeric, dash, underscore). */
export function partnerSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return slug || 'partner';
}
