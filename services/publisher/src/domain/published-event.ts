import type { ErrorKind } from '@marquee/platform/kernel';
import type { PublicationError } from './validate-published-event.js';

/**
 * A published event as publisher keeps it: the accepted body exactly as the publisher sent it
 * (unknown properties included; they are stored but never reach discovery), its owner and versions.
 */
export interface PublishedEvent {
  /** Generated public id (15 alphanumeric characters). */
  id: string;
  /** Platform version: 1 after publication, +1 on every update (`Event.version` on event-changed). */
  version: number;
  /** The developer app whose API key published it; only this app may change or delete it. */
  appId: string;
  /** The publisher's own `version` of the current state, when it sent one. */
  publisherVersion: number | null;
  /** The accepted body, verbatim. */
  body: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Set when the publication that created the event carried an `Idempotency-Key`: a digest of the
   * app and the key, so a repeat of that publication finds this event instead of creating another.
   */
  publicationKey?: string;
}

/** Result of an accepted publication or update (the publishing API's publication result). */
export interface PublicationResult {
  status: 'Success' | 'SuccessWarning';
  message?: string;
  id: string;
  missingProperties: Record<string, string>;
  unknownProperties: Record<string, unknown>;
  /** Platform version after the change. */
  version: number;
}

/**
 * Errors carry a `kind` of the platform's vocabulary (the gRPC port maps it to a status) and
 * `details.errors`: the items of the publishing error body, so every rejection reaches the
 * publisher in the documented shape, whatever the status.
 */
abstract class PublishingError extends Error {
  abstract readonly kind: ErrorKind;
  readonly details: { errors: PublicationError[] | ErrorItem[] };

  constructor(message: string, errors: PublicationError[] | ErrorItem[]) {
    super(message);
    this.name = new.target.name;
    this.details = { errors };
  }
}

/** An error body item that is not a validation rejection (404, 409). */
export interface ErrorItem {
  status: 'Error' | 'Rejected';
  code: string;
  detail: string;
  invalidProperties: Record<string, string>;
  missingProperties: Record<string, string>;
}

/** A rejected publication, HTTP 400. */
export class PublicationRejected extends PublishingError {
  readonly kind = 'invalid_argument' as const;
  constructor(errors: PublicationError[]) {
    super(errors.map((error) => error.detail).join('; '), errors);
  }
}

/** Unknown id, a deleted event, or an event of another app (indistinguishable on purpose). */
export class PublishedEventNotFound extends PublishingError {
  readonly kind = 'not_found' as const;
  constructor(id: string) {
    const detail = `No event ${id} published by this app`;
    super(detail, [
      {
        status: 'Error',
        code: 'EVENT_NOT_FOUND',
        detail,
        invalidProperties: {},
        missingProperties: {},
      },
    ]);
  }
}

/** The publisher's `version` does not move the event forward (README "Updates and deletions"). */
export class StaleVersion extends PublishingError {
  readonly kind = 'aborted' as const;
  constructor(id: string, stored: number, given: number | undefined, requirement: string) {
    const detail =
      given === undefined
        ? `Event ${id} is at publisher version ${stored}; send a version ${requirement}`
        : `Version ${given} is stale: event ${id} is at publisher version ${stored}; send a version ${requirement}`;
    super(detail, [
      {
        status: 'Rejected',
        code: 'STALE_VERSION',
        detail,
        invalidProperties: given === undefined ? {} : { version: `must be ${requirement}` },
        missingProperties: given === undefined ? { version: `is required, ${requirement}` } : {},
      },
    ]);
  }
}

/** A call without the owning app (the edge always sends it; a direct gRPC caller may not). */
export class MissingApp extends PublishingError {
  readonly kind = 'unauthenticated' as const;
  constructor() {
    const detail = 'The calling app is unknown: a valid apikey is required';
    super(detail, [
      {
        status: 'Error',
        code: 'UNAUTHORIZED',
        detail,
        invalidProperties: {},
        missingProperties: {},
      },
    ]);
  }
}

/** A list request this API cannot answer: a page token it did not give, a negative page size. */
export class InvalidListRequest extends PublishingError {
  readonly kind = 'invalid_argument' as const;
  constructor(code: 'INVALID_CURSOR' | 'INVALID_PROPERTY', property: string, problem: string) {
    const detail = `Invalid ${property}: ${problem}`;
    super(detail, [
      {
        status: 'Rejected',
        code,
        detail,
        invalidProperties: { [property]: problem },
        missingProperties: {},
      },
    ]);
  }
}
