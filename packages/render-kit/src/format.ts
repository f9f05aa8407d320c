/**
 * The secure-entry token and the rotating entry payload, as secure-entry issues them and as a
 * client (this kit, or a partner's own app) uses them. Pure and browser-safe: no Node API.
 *
 * Token (what the order read and secure render answer in `secure_entry_data.token`): standard
 * Base64 of the UTF-8 JSON object
 *
 *   { "v": 1, "b": "<numeric barcode>", "e": "<event id>", "r": "rotating_symbology" | "barcode",
 *     "s": "<segment type>", "t": <issued at, unix seconds>, "k": ["<base32>", "<base32>"],
 *     "f": "<sealed fixed part, base64url>" }
 *
 * `k` holds the two rotating secrets (absent or empty for `barcode` tickets) and `f` the fixed part
 * that only secure-entry can open (AES-256-GCM). Clients treat `f` as opaque.
 *
 * Payload (what the barcode encodes):
 *   rotating_symbology: `MQ1:<f>:<code1>:<code2>:<unix seconds>` (two RFC 6238 codes, 6 digits,
 *                       15-second step, HMAC-SHA-1, computed at that time)
 *   barcode:            `MQ1:<f>`
 */
import { TOTP, Secret } from 'otpauth';

/** Seconds per time step of the rotating codes. */
export const STEP_SECONDS = 15;
/** Digits per code. */
export const CODE_DIGITS = 6;
/** HMAC of the codes (RFC 6238's default; every authenticator implements it). */
export const CODE_ALGORITHM = 'SHA1';
/** Prefix and version of the payload format. */
export const PAYLOAD_PREFIX = 'MQ1';
export const TOKEN_VERSION = 1;

export type RenderType = 'rotating_symbology' | 'barcode';

/** The decoded token. */
export interface EntryToken {
  version: number;
  barcode: string;
  eventId: string;
  renderType: RenderType;
  segmentType: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Base32 rotating secrets; empty for `barcode`. */
  rotatingSecrets: string[];
  /** The sealed fixed part (base64url), opaque to clients. */
  fixed: string;
}

/** A scanned payload split into its parts. */
export interface EntryPayload {
  fixed: string;
  /** Absent for static `barcode` payloads. */
  codes?: [string, string];
  /** Unix seconds the client claimed; absent for static payloads. */
  timestamp?: number;
}

export class TokenFormatError extends Error {
  readonly kind = 'invalid_argument';
  constructor(message: string) {
    super(message);
    this.name = 'TokenFormatError';
  }
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const BASE32 = /^[A-Z2-7]+=*$/;

function utf8ToBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function base64ToUtf8(base64: string): string {
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** Encodes a token (secure-entry's side). */
export function encodeToken(token: EntryToken): string {
  return utf8ToBase64(
    JSON.stringify({
      v: token.version,
      b: token.barcode,
      e: token.eventId,
      r: token.renderType,
      s: token.segmentType,
      t: token.issuedAt,
      k: token.rotatingSecrets,
      f: token.fixed,
    }),
  );
}

/** Decodes and checks the shape of a token; throws TokenFormatError for anything else. */
export function decodeToken(text: string): EntryToken {
  let raw: unknown;
  try {
    raw = JSON.parse(base64ToUtf8(text.trim()));
  } catch {
    throw new TokenFormatError('the token is not Base64 of a JSON object');
  }
  if (typeof raw !== 'object' || raw === null)
    throw new TokenFormatError('the token is not an object');
  const o = raw as Record<string, unknown>;
  if (o.v !== TOKEN_VERSION) throw new TokenFormatError('unsupported token version');
  if (typeof o.b !== 'string' || !/^\d{8,32}$/.test(o.b))
    throw new TokenFormatError('barcode missing');
  if (typeof o.e !== 'string' || o.e.length === 0) throw new TokenFormatError('event missing');
  if (o.r !== 'rotating_symbology' && o.r !== 'barcode')
    throw new TokenFormatError('unknown render type');
  if (typeof o.s !== 'string') throw new TokenFormatError('segment type missing');
  if (typeof o.t !== 'number' || !Number.isInteger(o.t))
    throw new TokenFormatError('issue time missing');
  if (typeof o.f !== 'string' || !BASE64URL.test(o.f))
    throw new TokenFormatError('fixed part missing');
  const secrets = Array.isArray(o.k) ? o.k : [];
  if (!secrets.every((s): s is string => typeof s === 'string' && BASE32.test(s)))
    throw new TokenFormatError('rotating secrets malformed');
  if (o.r === 'rotating_symbology' && secrets.length !== 2)
    throw new TokenFormatError('a rotating token carries two secrets');
  return {
    version: o.v,
    barcode: o.b,
    eventId: o.e,
    renderType: o.r,
    segmentType: o.s,
    issuedAt: o.t,
    rotatingSecrets: secrets,
    fixed: o.f,
  };
}

/** The time step of an instant (milliseconds since the epoch). */
export const timeStep = (epochMs: number): number => Math.floor(epochMs / 1000 / STEP_SECONDS);

/** The RFC 6238 code of a base32 secret at a time step. */
export function codeAt(secretBase32: string, step: number): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secretBase32),
    algorithm: CODE_ALGORITHM,
    digits: CODE_DIGITS,
    period: STEP_SECONDS,
    timestamp: step * STEP_SECONDS * 1000,
  });
}

/** What the barcode shows at this instant (milliseconds since the epoch). */
export function payloadAt(token: EntryToken, epochMs: number): string {
  if (token.renderType === 'barcode') return `${PAYLOAD_PREFIX}:${token.fixed}`;
  const seconds = Math.floor(epochMs / 1000);
  const step = timeStep(epochMs);
  const [first, second] = token.rotatingSecrets as [string, string];
  return `${PAYLOAD_PREFIX}:${token.fixed}:${codeAt(first, step)}:${codeAt(second, step)}:${seconds}`;
}

/** Splits a scanned payload; throws TokenFormatError when it is not one of the two forms. */
export function parsePayload(text: string): EntryPayload {
  if (text.length > 4096) throw new TokenFormatError('payload too long');
  const parts = text.trim().split(':');
  if (parts[0] !== PAYLOAD_PREFIX) throw new TokenFormatError('not a Marquee entry payload');
  const fixed = parts[1];
  if (!fixed || !BASE64URL.test(fixed)) throw new TokenFormatError('fixed part malformed');
  if (parts.length === 2) return { fixed };
  if (parts.length !== 5) throw new TokenFormatError('payload has the wrong number of parts');
  const [, , first, second, seconds] = parts as [string, string, string, string, string];
  const code = new RegExp(`^\\d{${CODE_DIGITS}}$`);
  if (!code.test(first) || !code.test(second)) throw new TokenFormatError('codes malformed');
  if (!/^\d{1,12}$/.test(seconds)) throw new TokenFormatError('timestamp malformed');
  return { fixed, codes: [first, second], timestamp: Number(seconds) };
}
