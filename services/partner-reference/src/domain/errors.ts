import type { ErrorKind } from '@marquee/platform/kernel';
import { PartnerErrorId } from '@marquee/partner-api';

/** What a refused 3P call is, in the kernel's error kinds: the port answers each with its status. */
export type PartnerRefusalKind = Extract<ErrorKind, 'invalid_argument' | 'failed_precondition'>;

/**
 * A refused 3P call: the 3P error id and its message. `invalid_argument` for a malformed request
 * or an impossible value, `failed_precondition` for a well-formed request the partner cannot carry
 * out. The port answers it as the 3P error body `{id, message}` with the status of its kind
 * (ports/http/v1-routes.ts: 400 and 410).
 */
export class PartnerError extends Error {
  readonly id: number;
  readonly kind: PartnerRefusalKind;

  constructor(kind: PartnerRefusalKind, id: number, message: string) {
    super(message);
    this.name = 'PartnerError';
    this.id = id;
    this.kind = kind;
  }
}

/** The request is malformed or names an impossible value. */
export const invalid = (id: number, message: string): PartnerError =>
  new PartnerError('invalid_argument', id, message);

/** Well-formed, but the partner cannot carry it out. */
export const refused = (id: number, message: string): PartnerError =>
  new PartnerError('failed_precondition', id, message);

export const isPartnerError = (error: unknown): error is PartnerError =>
  error instanceof PartnerError;

export { PartnerErrorId as Err };
