import { AppError } from '@marquee/platform/errors';
import type { PartnerFailure } from '../app/ports.js';
import type { ErrorKind } from '@marquee/platform/kernel';

/** What a failed partner call records besides its kind and message. */
export interface PartnerCallFacts {
  partnerId: string;
  operation: string;
  httpStatus?: number;
  partnerErrorId?: number | undefined;
  outcomeUnknown?: boolean;
  transient: boolean;
  correlationId: string;
  circuitOpen?: boolean;
  egressRefused?: boolean;
  tooLarge?: boolean;
}

/** A failed partner call: an AppError (kind → gRPC status) with what the use cases need to know. */
export class PartnerCallError extends AppError implements PartnerFailure {
  readonly httpStatus: number;
  readonly partnerErrorId: number | undefined;
  readonly outcomeUnknown: boolean;
  readonly transient: boolean;
  readonly correlationId: string;
  /**
   * Why the egress policy refused the call (for the log and tests; kept out of the message, which
   * may reach a public answer through cart).
   */
  refusal: string | undefined;

  constructor(kind: ErrorKind, message: string, facts: PartnerCallFacts) {
    super(kind, message, {
      details: {
        partnerId: facts.partnerId,
        operation: facts.operation,
        ...(facts.httpStatus ? { httpStatus: facts.httpStatus } : {}),
        ...(facts.partnerErrorId !== undefined ? { partnerErrorId: facts.partnerErrorId } : {}),
        ...(facts.outcomeUnknown ? { outcomeUnknown: true } : {}),
        ...(facts.circuitOpen ? { circuitOpen: true } : {}),
        ...(facts.egressRefused ? { egressRefused: true } : {}),
        ...(facts.tooLarge ? { answerTooLarge: true } : {}),
      },
    });
    this.name = 'PartnerCallError';
    this.httpStatus = facts.httpStatus ?? 0;
    this.partnerErrorId = facts.partnerErrorId;
    this.outcomeUnknown = facts.outcomeUnknown ?? false;
    this.transient = facts.transient;
    this.correlationId = facts.correlationId;
    this.refusal = undefined;
  }
}
