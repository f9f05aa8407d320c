/**
 * The transactional outbox without multi-document transactions: a state change and its event are
 * written together (docs/decisions.md, Outbox without transactions). A store write carries its events in the SAME document (an `outbox`
 * array), so one single-document atomic write changes the state and records the event: they can
 * never diverge, on real MongoDB or on FerretDB, which has no transactions. A relay then reads the
 * pending events, publishes them and removes them (at least once; consumers dedupe on `ce_id`).
 */

/** One event waiting in a document's outbox. The value is already encoded (protobuf bytes). */
export interface OutboxEvent {
  /** CloudEvents `ce_id` (UUID). Fixed at write time so every re-publish carries the same id. */
  readonly id: string;
  /** Kafka topic name, e.g. `event-changed`. */
  readonly topic: string;
  /** Record key: the entity id that orders the stream. */
  readonly key: string;
  /** CloudEvents `ce_type`, the fully qualified protobuf message name. */
  readonly type: string;
  /** Encoded message; `null` is a tombstone (compacted topics). */
  readonly value: Uint8Array | null;
  /** CloudEvents `ce_time`: when the fact happened, i.e. the write, not the publish. */
  readonly time: Date;
  /** W3C trace context of the write, so the consumer's span joins the request that caused it. */
  readonly traceparent?: string;
  readonly tracestate?: string;
  /** Correlation id of the work that wrote the event (`x-correlation-id`). */
  readonly correlationId?: string;
}

/** A document with events still to publish, in write order. */
export interface PendingOutbox {
  readonly docId: string;
  /** May be empty: a document whose last ack was interrupted; acking `[]` tidies it up. */
  readonly events: readonly OutboxEvent[];
}

/**
 * What the relay needs from a store. Both store adapters implement it; a service with its own
 * repository can implement it too.
 */
export interface OutboxSource {
  /** Unique per database: the collection name. Used in logs and as the relay lease key. */
  readonly outboxName: string;
  /** Documents whose outbox is non-empty and due (not deferred after a failure), oldest first. */
  pendingOutbox(limit: number): Promise<PendingOutbox[]>;
  /**
   * Remove published events by id. Events written after the relay read the document stay; a
   * deleted record's tombstone is purged once its outbox is empty.
   */
  ackOutbox(docId: string, eventIds: readonly string[]): Promise<void>;
  /** Leave the document alone until `until` (backoff after a failed publish). A new write makes it due again. */
  deferOutbox(docId: string, until: Date): Promise<void>;
  /**
   * A time-bound lease so that only one relay (one replica of the service) relays a source at a
   * time: two relays interleaving re-publishes could put an older state last on a compacted topic.
   * Re-acquiring a lease one already holds extends it.
   */
  acquireOutboxLease(owner: string, ttlMs: number): Promise<boolean>;
  releaseOutboxLease(owner: string): Promise<void>;
  /** Called after a local write that added events, so the relay can publish at once instead of on its next poll. */
  onOutboxWrite(listener: () => void): () => void;
  /**
   * Finishes what the source defers of its acknowledgements (the single-writer Mongo mode removes
   * markers in batches); the relay calls it when it stops. Optional: most sources defer nothing.
   */
  settleOutbox?(): Promise<void>;
}

/** An event as handed to the bus: bytes unchanged, CloudEvents attributes, extra headers. */
export interface RawOutgoingEvent {
  id: string;
  key: string;
  type: string;
  value: Uint8Array | null;
  time: Date;
  /** `traceparent`/`tracestate` of the original write and `x-correlation-id`, when known. */
  headers: Record<string, string>;
}

/**
 * Publishes already-encoded events to a topic, in order, resolving only once the broker has them
 * (acks=all). `busRawPublisher(bus, topics)` makes one from the bus. Its optional `ready` answers
 * whether the broker is reachable: while the bus is down, the relay asks it instead of reading and
 * publishing a batch, and goes again as soon as it says yes.
 */
export type RawPublisher = ((topic: string, events: RawOutgoingEvent[]) => Promise<void>) & {
  ready?: () => Promise<boolean>;
};
