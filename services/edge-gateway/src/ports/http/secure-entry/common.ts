import { toDecimalString } from '@marquee/platform/money';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ApiFamily, FamilyError } from '../families/family.js';
import { logAndSendFamilyError, toFamilyError } from '../families/register-family.js';
import type { DeveloperAccess } from '../../../app/backends.js';
import { NOT_A_DISTRIBUTOR, requireApiKey } from '../api-key-guard.js';
import { noStore } from '../rate-limit-headers.js';

/** Input the schema cannot express (e.g. case-insensitive enums): a 400 of the family. */
export class InvalidInput extends Error {
  readonly kind = 'invalid_argument' as const;
}

/** The partner family's codes of the secure-entry routes (README, "Secure entry"). */
export const ENTRY_CODES = {
  invalidInput: '10002',
  orderNotFound: '90010',
  accountMismatch: '90011',
  deviceNotBound: '90012',
} as const;

const REASON_CODES: Record<string, string> = {
  order_not_found: ENTRY_CODES.orderNotFound,
  account_mismatch: ENTRY_CODES.accountMismatch,
  device_not_bound: ENTRY_CODES.deviceNotBound,
};

type EntryErrorSource = FastifyError & { kind?: string; details?: Record<string, unknown> };

/** Any error of a secure-entry route of the partner families as the family error. */
export function partnerEntryError(family: ApiFamily, err: EntryErrorSource): FamilyError {
  const base = toFamilyError(family, err);
  if (base.status >= 500) return base;
  if (err.validation || (typeof err.code === 'string' && err.code.startsWith('FST_'))) {
    return { ...base, code: ENTRY_CODES.invalidInput };
  }
  const reason = typeof err.details?.reason === 'string' ? err.details.reason : undefined;
  const code = reason ? REASON_CODES[reason] : undefined;
  if (code) return { ...base, code };
  if (base.code === 'invalid_argument') return { ...base, code: ENTRY_CODES.invalidInput };
  return base;
}

/** The error handler of a secure-entry scope of the partner families. */
export function useEntryErrors(scope: FastifyInstance, family: ApiFamily): void {
  scope.setErrorHandler((err: EntryErrorSource, request, reply) =>
    logAndSendFamilyError(err, request, reply, family, partnerEntryError(family, err)),
  );
}

/** Minor units as the decimal string of the currency (`5000 USD` -> `"50.00"`, `45500 KWD` -> `"45.500"`). */
export const decimalOf = (amountMinor: number, currency: string): string =>
  toDecimalString(amountMinor, currency);

/**
 * A secure-entry scope of the partner distribution APIs: the family's entry errors, no caching,
 * and an API key (query `apikey` or header `x-api-key`) of an app allowed partner distribution.
 */
export function distributorScope(
  scope: FastifyInstance,
  family: ApiFamily,
  developerAccess: DeveloperAccess,
): void {
  useEntryErrors(scope, family);
  noStore(scope);
  requireApiKey(scope, family, developerAccess, {
    from: [
      { in: 'query', name: 'apikey' },
      { in: 'header', name: 'x-api-key' },
    ],
    requires: { access: 'partnerDistribution', refusal: NOT_A_DISTRIBUTOR },
  });
}
