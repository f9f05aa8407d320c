import {
  createHmac,
  createSecretKey,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';

/**
 * Signed service tokens: how one Marquee service proves to another that it is a Marquee service,
 * and which one. A token is `v1.<payload>.<mac>`, both base64url: the payload is the JSON
 * `{iss, aud, iat, exp}` (calling service, called gRPC service, issued and expiry in epoch
 * seconds), the MAC is HMAC-SHA256 of `v1.<payload>` under the shared `SERVICE_AUTH_KEY`. It is
 * deliberately not a general JWT: one algorithm, fixed claims, no header to negotiate (no `alg:
 * none` or key-confusion class of mistakes).
 *
 * This module is plain crypto with no gRPC import, so the configuration schema can validate keys.
 */

const VERSION = 'v1';
/** Lifetime of a minted token; clients mint a new one a minute before it ends. */
export const SERVICE_TOKEN_TTL_S = 300;
/** Clock difference between hosts that is tolerated on `iat` and `exp`. */
const CLOCK_SKEW_S = 60;
/** A key must carry at least this much entropy (HMAC-SHA256: as long as its output). */
export const SERVICE_AUTH_KEY_MIN_BYTES = 32;
/** Tokens are a few hundred bytes; anything longer is refused before it is parsed. */
const MAX_TOKEN_LENGTH = 1_024;
/** Service names as the chart and the runner write them; also bounds the claim. */
const NAME = /^[a-z0-9][a-z0-9.-]{0,62}$/;
const AUDIENCE = /^[A-Za-z0-9_.]{1,200}$/;

export interface ServiceTokenClaims {
  /** The calling service (`edge-gateway`). */
  iss: string;
  /** The called gRPC service (`marquee.auth.v1.AuthService`). */
  aud: string;
  iat: number;
  exp: number;
}

export type VerifiedToken = { ok: true; caller: string } | { ok: false; reason: string };

function decodeKey(text: string): Buffer | undefined {
  // base64 or base64url; Buffer.from ignores characters outside the alphabet, so check first.
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  const key = Buffer.from(text, 'base64');
  return key.length >= SERVICE_AUTH_KEY_MIN_BYTES ? key : undefined;
}

/**
 * Why a `SERVICE_AUTH_KEY` value is unusable, or undefined when it is fine. The value is one key,
 * or several separated by commas during a rotation (the first signs, every one verifies); each is
 * base64 (or base64url) of at least 32 random bytes.
 */
export function serviceAuthKeyProblem(raw: string): string | undefined {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => part.length === 0))
    return 'must list one or more keys separated by commas';
  if (parts.some((part) => decodeKey(part) === undefined))
    return `each key must be base64 of at least ${SERVICE_AUTH_KEY_MIN_BYTES} random bytes (head -c 32 /dev/urandom | base64)`;
  return undefined;
}

/** A fresh key in the form `SERVICE_AUTH_KEY` takes. */
export function generateServiceAuthKey(): string {
  return randomBytes(SERVICE_AUTH_KEY_MIN_BYTES).toString('base64');
}

/**
 * How many verified tokens a keyring remembers. A caller mints one token per audience and uses it
 * for every call of its lifetime (five minutes), so a process sees a handful at a time.
 */
const REMEMBERED_TOKENS = 256;

/** The keys of one process: the first signs, every one verifies (rotation without downtime). */
export class ServiceKeyring {
  // KeyObjects made once: given raw bytes, every HMAC would import the key again.
  private readonly keys: readonly KeyObject[];
  /**
   * Tokens whose signature and claims checked out, by their exact text: a caller sends the same
   * token on every call of its lifetime, so the HMAC (a tenth of a service's CPU on cheap calls)
   * runs once per token, not per call. Audience and lifetime are checked on every call.
   */
  private readonly verified = new Map<string, ServiceTokenClaims>();

  // No parameter property: the sources also run under Node's type stripping (service/run.test.ts).
  private constructor(keys: readonly Buffer[]) {
    this.keys = keys.map((key) => createSecretKey(key));
  }

  /** Parses a `SERVICE_AUTH_KEY` value; throws (naming no key material) when it is unusable. */
  static parse(raw: string): ServiceKeyring {
    const problem = serviceAuthKeyProblem(raw);
    if (problem !== undefined) throw new Error(`SERVICE_AUTH_KEY ${problem}`);
    return new ServiceKeyring(raw.split(',').map((part) => decodeKey(part.trim())!));
  }

  static generate(): ServiceKeyring {
    return ServiceKeyring.parse(generateServiceAuthKey());
  }

  /** A token for `caller` calling `audience`, valid for {@link SERVICE_TOKEN_TTL_S}. */
  mint(caller: string, audience: string, nowMs = Date.now()): string {
    if (!NAME.test(caller)) throw new Error(`not a service name: ${JSON.stringify(caller)}`);
    const iat = Math.floor(nowMs / 1000);
    const claims: ServiceTokenClaims = {
      iss: caller,
      aud: audience,
      iat,
      exp: iat + SERVICE_TOKEN_TTL_S,
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${VERSION}.${payload}.${this.mac(this.keys[0]!, payload).toString('base64url')}`;
  }

  /** Checks signature, audience and lifetime; the reason of a refusal names no secret. */
  verify(token: string | undefined, audience: string, nowMs = Date.now()): VerifiedToken {
    if (typeof token !== 'string' || token.length === 0) return refused('no service token');
    if (token.length > MAX_TOKEN_LENGTH) return refused('service token too long');
    const known = this.verified.get(token);
    if (known !== undefined) return checkClaims(known, audience, nowMs);
    const claims = this.signedClaims(token);
    if (!('iss' in claims)) return claims;
    const answer = checkClaims(claims, audience, nowMs);
    if (answer.ok) {
      if (this.verified.size >= REMEMBERED_TOKENS) this.verified.clear();
      this.verified.set(token, claims);
    }
    return answer;
  }

  /** The claims of a token whose signature checks out and whose claims are well formed. */
  private signedClaims(token: string): ServiceTokenClaims | VerifiedToken {
    const [version, payload, mac, extra] = token.split('.');
    if (version !== VERSION || !payload || !mac || extra !== undefined)
      return refused('malformed service token');
    const presented = Buffer.from(mac, 'base64url');
    const signed = this.keys.some((key) => {
      const expected = this.mac(key, payload);
      return presented.length === expected.length && timingSafeEqual(presented, expected);
    });
    if (!signed) return refused('bad service token signature');
    let claims: Partial<ServiceTokenClaims>;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as object;
    } catch {
      return refused('malformed service token');
    }
    if (
      typeof claims.iss !== 'string' ||
      !NAME.test(claims.iss) ||
      typeof claims.aud !== 'string' ||
      !AUDIENCE.test(claims.aud) ||
      typeof claims.iat !== 'number' ||
      typeof claims.exp !== 'number'
    )
      return refused('malformed service token');
    return { iss: claims.iss, aud: claims.aud, iat: claims.iat, exp: claims.exp };
  }

  /**
   * HMAC-SHA256 of `data` under the signing key for another use than service tokens (Kafka record
   * signatures): `purpose` goes first into the MAC, so a MAC of one use is never valid for another
   * (token MACs start with `v1.`, a purpose never does).
   */
  macFor(purpose: string, data: string): Buffer {
    return createHmac('sha256', this.keys[0]!).update(`${purpose}\n${data}`).digest();
  }

  /** Whether `presented` is the {@link macFor} of `data` under any key (rotation). */
  checksMacFor(purpose: string, data: string, presented: Buffer): boolean {
    return this.keys.some((key) => {
      const expected = createHmac('sha256', key).update(`${purpose}\n${data}`).digest();
      return presented.length === expected.length && timingSafeEqual(presented, expected);
    });
  }

  private mac(key: KeyObject, payload: string): Buffer {
    return createHmac('sha256', key).update(`${VERSION}.${payload}`).digest();
  }
}

/** Audience and lifetime of signed claims, as of `nowMs`. */
function checkClaims(claims: ServiceTokenClaims, audience: string, nowMs: number): VerifiedToken {
  const now = Math.floor(nowMs / 1000);
  if (claims.aud !== audience) return refused('service token for another service');
  if (claims.exp <= now - CLOCK_SKEW_S) return refused('service token expired');
  if (claims.iat > now + CLOCK_SKEW_S || claims.exp - claims.iat > SERVICE_TOKEN_TTL_S)
    return refused('service token lifetime out of bounds');
  return { ok: true, caller: claims.iss };
}

const refused = (reason: string): VerifiedToken => ({ ok: false, reason });
