import type { PublishedEvent } from '../domain/published-event.js';

/**
 * Where published events live. Every write also records the matching `event-changed` record (whole
 * current state; a tombstone for a removal) atomically with it, through the outbox, so the topic can
 * never miss or invent a change. Version conflicts between concurrent writers reject with an error of
 * kind `aborted`.
 */
export interface PublishedEventRepository {
  get(id: string): Promise<PublishedEvent | undefined>;
  /** The app's event created at or after `since` by the publication with this key, if any. */
  findByPublicationKey(
    appId: string,
    publicationKey: string,
    since: Date,
  ): Promise<PublishedEvent | undefined>;
  /**
   * The app's live events, newest `createdAt` first and, within one instant, by id ascending; only
   * those after `after` in that order when given. At most `limit`.
   */
  listByApp(
    appId: string,
    options: { limit: number; after?: { createdAt: Date; id: string } },
  ): Promise<PublishedEvent[]>;
  /** Stores a new event at version 1. */
  create(event: PublishedEvent): Promise<PublishedEvent>;
  /** Replaces the event if it is still at `expectedVersion`; the stored version becomes +1. */
  replace(event: PublishedEvent, expectedVersion: number): Promise<PublishedEvent>;
  /** Deletes the event if it is still at `event.version`; `event-changed` gets a tombstone. */
  remove(event: PublishedEvent): Promise<void>;
}

/** Unguessable public event ids. */
export type EventIdGenerator = () => string;
/** The time, as the platform's kernel defines it. */
export type { Clock } from '@marquee/platform/kernel';
