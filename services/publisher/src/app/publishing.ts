import { errorKindOf, retryingConflicts } from '@marquee/platform/kernel';
import {
  InvalidListRequest,
  MissingApp,
  PublicationRejected,
  PublishedEventNotFound,
  StaleVersion,
  type PublicationResult,
  type PublishedEvent,
} from '../domain/published-event.js';
import { validatePublishedEvent, warningMessage } from '../domain/validate-published-event.js';
import { decodePageToken, encodePageToken } from './page-token.js';
import type { Clock, EventIdGenerator, PublishedEventRepository } from './ports.js';

/** Events per page of a list: when the caller names none, and at most. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * Tries of an update that keeps losing races before it gives up with the conflict: the API answers
 * 409 `aborted` after three (README, error codes), and the publisher retries.
 */
const UPDATE_ATTEMPTS = 3;

/** A lost compare-and-set; a StaleVersion (also `aborted`) is the answer, not a race. */
const lostRace = (error: unknown) =>
  errorKindOf(error) === 'aborted' && !(error instanceof StaleVersion);

export interface PublishCommand {
  appId: string;
  body: unknown;
  /**
   * A digest of the app and the request's `Idempotency-Key`, when it had one (the gRPC port makes
   * it). The created event keeps it, and a publication with a key whose event already exists
   * answers that event instead of creating another.
   */
  publicationKey?: string;
}

export interface UpdateCommand {
  appId: string;
  body: unknown;
  id: string;
}

export interface DeleteCommand {
  appId: string;
  id: string;
  /** The publisher's version of the deletion, when it sent one. */
  publisherVersion?: number;
}

export interface Publishing {
  publish(command: PublishCommand): Promise<PublicationResult>;
  update(command: UpdateCommand): Promise<PublicationResult>;
  remove(command: DeleteCommand): Promise<void>;
  /** The event as its app published it (404 for other apps, like for unknown ids). */
  get(query: { appId: string; id: string }): Promise<PublishedEvent>;
  /** A page of the app's events, newest publication first. */
  list(query: ListQuery): Promise<EventPage>;
}

export interface ListQuery {
  appId: string;
  /** 0: {@link DEFAULT_PAGE_SIZE}; above {@link MAX_PAGE_SIZE}: that many. */
  pageSize: number;
  /** `nextPageToken` of the previous page; empty for the first. */
  pageToken: string;
}

export interface EventPage {
  events: PublishedEvent[];
  /** Empty on the last page. */
  nextPageToken: string;
}

/** How long a publication key finds the event it created, unless told otherwise (24 h). */
const DEFAULT_PUBLICATION_KEY_WINDOW_MS = 24 * 60 * 60_000;

/**
 * The publishing use cases (the publishing API; updates and deletions as designed in the README).
 * Publication creates a new event with a generated id; re-posting the same body without an
 * idempotency key creates another event. Only the app that published an event can change or delete
 * it, and the publisher's `version` orders its changes.
 *
 * Retries with an `Idempotency-Key` are answered by the platform's idempotency records in the gRPC
 * port; the publication key covers the one case those cannot: the first attempt's process died
 * after creating the event but before recording its outcome, and a retry took the key over.
 */
export function createPublishing(deps: {
  repository: PublishedEventRepository;
  newId: EventIdGenerator;
  clock: Clock;
  /** How long after its creation an event is found by its publication key (the key TTL). */
  publicationKeyWindowMs?: number;
}): Publishing {
  const { repository, newId, clock } = deps;
  const keyWindowMs = deps.publicationKeyWindowMs ?? DEFAULT_PUBLICATION_KEY_WINDOW_MS;

  return {
    async publish({ appId, body, publicationKey }) {
      if (!appId) throw new MissingApp();
      const outcome = accept(body);
      const now = clock.now();
      if (publicationKey) {
        const since = new Date(now.getTime() - keyWindowMs);
        const earlier = await repository.findByPublicationKey(appId, publicationKey, since);
        // The publication's own answer: the event as it was created, whatever happened since.
        if (earlier) return result({ ...earlier, version: 1 }, outcome);
      }
      const created = await repository.create({
        id: newId(),
        version: 1,
        appId,
        publisherVersion: outcome.event.version ?? null,
        body: outcome.event as Record<string, unknown>,
        createdAt: now,
        updatedAt: now,
        ...(publicationKey ? { publicationKey } : {}),
      });
      return result(created, outcome);
    },

    async update({ appId, id, body }) {
      const outcome = accept(body);
      const given = outcome.event.version;
      // Another change that wins the race since the read makes this decide again on the new state,
      // so the publisher's versions, not timing, choose the winner.
      return retryingConflicts(
        async () => {
          const current = await owned(repository, appId, id);
          requireNewer(current, given);
          const replaced = await repository.replace(
            {
              ...current,
              publisherVersion: given ?? null,
              body: outcome.event as Record<string, unknown>,
              updatedAt: clock.now(),
            },
            current.version,
          );
          return result(replaced, outcome);
        },
        { attempts: UPDATE_ATTEMPTS, isConflict: lostRace },
      );
    },

    async get({ appId, id }) {
      return owned(repository, appId, id);
    },

    async list(query) {
      return listPage(repository, query);
    },

    async remove({ appId, id, publisherVersion }) {
      const current = await owned(repository, appId, id);
      requireNotOlder(current, publisherVersion);
      await repository.remove(current);
    },
  };
}

/** The body's validation outcome; a rejection (400) when it is not a valid event. */
function accept(body: unknown) {
  const outcome = validatePublishedEvent(body);
  if (!outcome.ok) throw new PublicationRejected(outcome.errors);
  return outcome;
}

/** The event, when the app published it; otherwise not found (404). */
async function owned(
  repository: PublishedEventRepository,
  appId: string,
  id: string,
): Promise<PublishedEvent> {
  if (!appId) throw new MissingApp();
  const current = await repository.get(id);
  // Another app's event answers like an unknown id: ids must not be probeable across apps.
  if (!current || current.appId !== appId) throw new PublishedEventNotFound(id);
  return current;
}

/** The answer to a publication or update: the event's id and version, with any warnings. */
function result(
  event: PublishedEvent,
  outcome: {
    unknownProperties: Record<string, unknown>;
    missingProperties: Record<string, string>;
  },
): PublicationResult {
  const message = warningMessage(outcome.unknownProperties, outcome.missingProperties);
  return {
    status: message === undefined ? 'Success' : 'SuccessWarning',
    ...(message === undefined ? {} : { message }),
    id: event.id,
    missingProperties: outcome.missingProperties,
    unknownProperties: outcome.unknownProperties,
    version: event.version,
  };
}

/** A page of the app's events, newest publication first. */
async function listPage(
  repository: PublishedEventRepository,
  { appId, pageSize, pageToken }: ListQuery,
): Promise<EventPage> {
  if (!appId) throw new MissingApp();
  if (!Number.isInteger(pageSize) || pageSize < 0) {
    throw new InvalidListRequest('INVALID_PROPERTY', 'size', 'must be a positive integer');
  }
  const size = pageSize === 0 ? DEFAULT_PAGE_SIZE : Math.min(pageSize, MAX_PAGE_SIZE);
  const after = pageToken ? decodePageToken(pageToken) : undefined;
  // One more than the page: whether there is a next page, without a count.
  const found = await repository.listByApp(appId, {
    limit: size + 1,
    ...(after ? { after } : {}),
  });
  const events = found.slice(0, size);
  const last = events.at(-1);
  return {
    events,
    nextPageToken: found.length > size && last ? encodePageToken(last) : '',
  };
}

/** Strictly greater: a retried or reordered older update must not overwrite a newer state. */
function requireNewer(current: PublishedEvent, given: number | undefined): void {
  if (
    current.publisherVersion !== null &&
    (given === undefined || given <= current.publisherVersion)
  ) {
    throw new StaleVersion(
      current.id,
      current.publisherVersion,
      given,
      `greater than ${current.publisherVersion}`,
    );
  }
}

/** A deletion may carry the version it deletes (>=): it is the last change of the event. */
function requireNotOlder(current: PublishedEvent, publisherVersion: number | undefined): void {
  if (
    publisherVersion !== undefined &&
    current.publisherVersion !== null &&
    publisherVersion < current.publisherVersion
  ) {
    throw new StaleVersion(
      current.id,
      current.publisherVersion,
      publisherVersion,
      `at least ${current.publisherVersion}`,
    );
  }
}
