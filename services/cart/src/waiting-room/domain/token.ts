import { CartError, ErrorCode } from '../../domain/errors.js';

/**
 * An admission: what a fan let through the waiting room presents with its reserve. The token is
 * these claims signed by cart (adapters), so any replica checks it without a lookup; it is
 * single-use because the queue ticket it names moves from ADMITTED to USED in one
 * compare-and-set when a reserve spends it.
 */
export interface AdmissionClaims {
  /** The queue ticket id. */
  ticketId: string;
  eventId: string;
  appId: string;
  /** `fan:<id>` or `device:<id>`. */
  identity: string;
  /** Unix milliseconds after which it is refused. */
  expiresAtMs: number;
}

/** Who presents the admission with a reserve. */
export interface AdmissionUse {
  eventId: string;
  appId: string;
  identity: string;
  now: Date;
}

const refused = (why: string) =>
  new CartError(
    'permission_denied',
    ErrorCode.ADMISSION_REQUIRED,
    `the event's on-sale has a queue: ${why}; join it with POST /partners/v1/events/{event_id}/queue and reserve with the admission it gives`,
  );

/**
 * Checks verified claims against the reserve that presents them: the same event, app and
 * identity, not expired. Throws permission_denied (20070) with the reason otherwise.
 */
export function checkAdmission(
  claims: AdmissionClaims | undefined,
  use: AdmissionUse,
): AdmissionClaims {
  if (!claims) throw refused('no valid admission token');
  if (claims.eventId !== use.eventId) throw refused('the admission is for another event');
  if (claims.appId !== use.appId) throw refused('the admission belongs to another app');
  if (claims.identity !== use.identity)
    throw refused('the admission belongs to another fan or device');
  if (claims.expiresAtMs <= use.now.getTime()) throw refused('the admission expired');
  return claims;
}
