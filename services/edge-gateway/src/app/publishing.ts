/** Outcome of an accepted publication or update (the publishing API's publication result). */
export interface PublicationAnswer {
  status: 'Success' | 'SuccessWarning';
  /** Warning text; empty for a plain Success. */
  message: string;
  id: string;
  missingProperties: Record<string, unknown>;
  unknownProperties: Record<string, unknown>;
}

/**
 * publisher (the publishing API). Rejections arrive as errors with a `kind` and, from
 * publisher, `details.errors`: the items of the publishing error body.
 */
export interface Publishing {
  /**
   * With an `idempotencyKey` (the `Idempotency-Key` header), a retry with the same key and event
   * answers the first outcome; the same key with another event fails with kind
   * `failed_precondition`, `details.reason` `idempotency-key-reused`.
   */
  publishEvent(input: {
    appId: string;
    event: Record<string, unknown>;
    idempotencyKey?: string;
  }): Promise<PublicationAnswer>;
  updateEvent(input: {
    appId: string;
    id: string;
    event: Record<string, unknown>;
  }): Promise<PublicationAnswer>;
  deleteEvent(input: { appId: string; id: string; publisherVersion?: number }): Promise<void>;
  /** The accepted body of the event, as its app published it. */
  getEvent(input: { appId: string; id: string }): Promise<Record<string, unknown>>;
  /**
   * A page of the app's events, newest publication first. `size` 1-100 (publisher's default when
   * absent); `cursor` the `nextCursor` of the previous page. An unknown cursor fails with kind
   * `invalid_argument` and publisher's error items.
   */
  listEvents(input: { appId: string; size?: number; cursor?: string }): Promise<PublishedEventPage>;
}

/** One page of an app's published events. */
export interface PublishedEventPage {
  events: Array<{
    id: string;
    event: Record<string, unknown>;
    createdAt: Date;
    updatedAt: Date;
  }>;
  /** Empty on the last page. */
  nextCursor: string;
}
