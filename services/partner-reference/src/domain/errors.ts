import type { ErrorKind } from '@marquee/platform/kernel';
import { PartnerErrorId } from '@marquee/partner-api';

/**
 * A refused 3P call: the HTTP status and the `{id, message}` body the API answers. 400 for a
 * malformed request or an impossible value, 410 for a well-formed request the partner cannot carry
 * out. `kind` is the kernel's error kind of each (errors are recognised structurally). The port
 * answers it as the 3P error body `{id, message}` (ports/http/v1-routes.ts).
 */
export class PartnerError extends Error {
  readonly status: 400 | 410;
  readonly id: number;
  readonly kind: Extract<ErrorKind, 'invalid_argument' | 'failed_precondition'>;

  constructor(status: 400 | 410, id: number, message: string) {
    super(message);
    this.name = 'PartnerError';
    this.status = status;
    this.id = id;
    this.kind = status === 400 ? 'invalid_argument' : 'failed_precondition';
  }
}

/** 400: the request is malformed or names an impossible value. */
export const invalid = (id: number, message: string): PartnerError =>
  new PartnerError(400, id, message);

/** 410: well-formed, but the partner cannot carry it out. */
export const refused = (id: number, message: string): PartnerError =>
  new PartnerError(410, id, message);

export const isPartnerError = (error: unknown): error is PartnerError =>
  error instanceof PartnerError;

export { PartnerErrorId as Err };
