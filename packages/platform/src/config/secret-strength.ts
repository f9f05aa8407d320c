import { z } from 'zod';

/**
 * How strong a random secret (a bearer token, say) is, judged by its entropy: the number of
 * characters times log2 of the alphabet of the encoding it is written in. The encoding is the
 * smallest of these that holds every character:
 *
 * - hex (`openssl rand -hex 16`): 16 symbols, 4 bits a character, in either case;
 * - base64 (`head -c 24 /dev/urandom | base64`) and base64url (`randomBytes(24).toString('base64url')`):
 *   64 symbols, 6 bits a character; `=` padding at the end counts for nothing.
 *
 * The figure is what the string holds if each character was drawn at random, which no check can
 * tell from the string itself: make secrets with a random generator. Two shapes that cannot be
 * random are refused outright: characters outside these encodings (a pass phrase, a sentence) and
 * one short unit repeated (`abab...`), which a random token of 128 bits shows with a chance of
 * about 2^-64 at most.
 */
export type SecretEncoding = 'hex' | 'base64' | 'base64url';

export interface SecretStrength {
  /** undefined: not written in any of the encodings. */
  encoding: SecretEncoding | undefined;
  /** length × log2(alphabet), rounded down; 0 when there is no encoding or the value repeats a unit. */
  bits: number;
  /** The whole value is one shorter string repeated. */
  repeated: boolean;
}

/** The bits most secrets of the platform must hold: beyond any guessing, online or offline. */
export const MIN_SECRET_BITS = 128;

const HEX = /^[0-9a-f]+$/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
/** Whether `value` is one shorter string repeated: it then occurs in itself twice, shifted. */
const repeatsAUnit = (value: string): boolean =>
  value.length > 1 && (value + value).indexOf(value, 1) < value.length;

/** The encoding a secret is written in, and the entropy it holds if it is random. */
export function secretStrength(value: string): SecretStrength {
  const encoding: SecretEncoding | undefined = HEX.test(value)
    ? 'hex'
    : BASE64.test(value)
      ? 'base64'
      : BASE64URL.test(value)
        ? 'base64url'
        : undefined;
  const repeated = repeatsAUnit(value);
  if (encoding === undefined || repeated) return { encoding, bits: 0, repeated };
  const symbols = value.replace(/=+$/, '').length;
  return { encoding, bits: Math.floor(symbols * (encoding === 'hex' ? 4 : 6)), repeated };
}

/**
 * Why `value` is too weak for a secret of `minBits`, or undefined when it is strong enough. The
 * reason names the rule and the measured bits, never the value.
 */
export function weakSecretReason(
  value: string,
  minBits: number = MIN_SECRET_BITS,
): string | undefined {
  const strength = secretStrength(value);
  const howTo = `e.g. openssl rand -hex ${Math.ceil(minBits / 8)}, or head -c ${Math.ceil(minBits / 8)} /dev/urandom | base64`;
  if (strength.encoding === undefined)
    return `must be a random value in hex, base64 or base64url of at least ${minBits} bits (${howTo})`;
  if (strength.repeated)
    return `must be random: it repeats one shorter part (${howTo}; at least ${minBits} bits)`;
  if (strength.bits < minBits)
    return (
      `must hold at least ${minBits} bits of entropy (characters × bits per character: ` +
      `4 in hex, 6 in base64 or base64url); this ${strength.encoding} value holds ${strength.bits} (${howTo})`
    );
  return undefined;
}

/**
 * A zod string for a random secret of at least `minBits` (default {@link MIN_SECRET_BITS}) judged
 * by {@link secretStrength}; refused values get {@link weakSecretReason}'s message.
 */
export const randomSecret = (minBits: number = MIN_SECRET_BITS) =>
  z.string().superRefine((value, ctx) => {
    const reason = weakSecretReason(value, minBits);
    if (reason !== undefined) ctx.addIssue({ code: 'custom', message: reason });
  });
