import type { PaymentAction } from './payment-action.js';

/**
 * An API family of the public surface: its path prefixes and its own documented error body.
 * Every family answers unknown paths and bad input in its own shape (docs/api-families.md), so a
 * client of the deals API never sees the discovery API's error body and nobody ever sees a stack
 * trace.
 */
export interface FamilyError {
  status: number;
  /** Machine-readable code in the family's vocabulary. */
  code: string;
  /** Human-readable explanation, safe to show to a developer. */
  detail: string;
  /** `Retry-After` of a 429 or 503 whose back end named its wait (whole seconds). */
  retryAfterSeconds?: number;
  /** A payment awaiting 3-D Secure: what the client does next (families that take payments). */
  paymentAction?: PaymentAction;
}

export interface ApiFamily {
  /** Short id used in logs, metrics and the OpenAPI tags. */
  readonly id: string;
  readonly title: string;
  /** Path prefixes served by this family (e.g. `/dc/content/v1` and its QA twin). */
  readonly prefixes: readonly string[];
  /** The family's documented error body for this error. */
  errorBody(error: FamilyError): unknown;
  /**
   * The JSON schema of {@link errorBody} for an answer of this status (the OpenAPI document
   * lists it for every status a route of the family can answer).
   */
  errorSchema(status: number): Record<string, unknown>;
  /** The status a request-validation failure gets (400 for most, 406 for the deals API). */
  readonly validationStatus: number;
  /** The error of a missing or unknown API key. */
  readonly unauthorized: FamilyError;
  /**
   * The code of a request refused before any route of the family sees it (a path segment longer
   * than the router's limit, 414; a URL that does not decode, 400); `invalid_request` when absent.
   */
  readonly invalidRequestCode?: string;
}

/**
 * Response schemas of a route's own refusals (beyond what every route of the family answers, which
 * the OpenAPI document adds itself: openapi-contract.ts): each status with the family's error body
 * and what it means on this route.
 */
export function familyErrorResponses(
  family: ApiFamily,
  described: Readonly<Record<number, string>>,
): Record<number, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(described).map(([status, description]) => [
      status,
      { ...family.errorSchema(Number(status)), description },
    ]),
  );
}
