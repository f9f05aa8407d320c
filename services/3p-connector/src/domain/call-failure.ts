/** The partner calls whose failure is announced on `partner-call-failed`. */
export type PartnerOperation = 'CREATE_BOOKING' | 'CREATE_ORDER' | 'CANCEL_ORDER';

/**
 * A partner call that failed in a way the platform must hear of: its outcome is unknown (no
 * answer), or it was queued for retry. Stored with its announcement, so it cannot be lost.
 */
export interface CallFailure {
  partnerId: string;
  operation: PartnerOperation;
  /** Empty when the call had none. */
  cartId: string;
  orderId: string;
  eventId: string;
  inventoryToken: string;
  inventoryOrderId: string;
  /** 0 when no answer arrived. */
  httpStatus: number;
  /** 0 when the partner gave none. */
  partnerErrorId: number;
  message: string;
  attempt: number;
  willRetry: boolean;
  outcomeUnknown: boolean;
  correlationId: string;
  failedAt: Date;
}
