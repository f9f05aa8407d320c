/**
 * Errors of the waiting room: a `kind` (the gRPC status its port answers) and a reason code the
 * edge renders in the partner API's error body.
 */
export type WaitingRoomErrorKind =
  'invalid_argument' | 'not_found' | 'failed_precondition' | 'permission_denied';

export const WaitingRoomCode = {
  /** A field is missing or malformed. */
  INVALID_INPUT: '10002',
  /** No on-sale with a queue for this event, or no such queue ticket. */
  NOT_FOUND: '90003',
  /** A reserve without a valid admission while the queue is on. */
  ADMISSION_REQUIRED: '20070',
} as const;

export type WaitingRoomCode = (typeof WaitingRoomCode)[keyof typeof WaitingRoomCode];

export class WaitingRoomError extends Error {
  readonly details: Record<string, unknown>;

  constructor(
    readonly kind: WaitingRoomErrorKind,
    readonly code: WaitingRoomCode,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'WaitingRoomError';
    this.details = { ...details, reason: code };
  }
}

export const invalidQueueInput = (message: string, field: string): WaitingRoomError =>
  new WaitingRoomError('invalid_argument', WaitingRoomCode.INVALID_INPUT, message, { field });
