import type {
  AvailabilityAnswer,
  BookingAnswer,
  BookingRequest,
  EventAnswer,
  EventsPage,
  HealthcheckResult,
  LogoAnswer,
  ManifestAnswer,
  OrderActionAnswer,
  OrderActionRequest,
  OrderAnswer,
  OrderRequest,
  OrdersPage,
  TaxPlanAnswer,
} from '@marquee/partner-api';
import type { AvailabilitySnapshot } from '../domain/availability.js';
import type { CallFailure } from '../domain/call-failure.js';
import type { QueuedCancel } from '../domain/cancel-queue.js';
import type { ErrorKind } from '@marquee/platform/kernel';
import type { HealthState } from '../domain/partner.js';
import type { ImportedEvent } from '../domain/imported-event.js';
import type { EncryptedSecret, Partner, VenueImportState } from '../domain/partner.js';

export type { HealthState } from '../domain/partner.js';

/** Per call: the caller's remaining deadline, when it has one (the adapter bounds it by its own). */
export interface CallOptions {
  deadlineMs?: number | undefined;
}

/** The 3P API of one partner, answers checked against the contract. Failures are PartnerFailure. */
export interface PartnerApi {
  healthcheck(options?: CallOptions): Promise<HealthcheckResult>;
  listEvents(
    query: { venue: string; lastModification: string; page: number; size: number },
    options?: CallOptions,
  ): Promise<EventsPage>;
  getEvent(
    id: string,
    lastModification: string | undefined,
    options?: CallOptions,
  ): Promise<EventAnswer>;
  getManifest(id: string, options?: CallOptions): Promise<ManifestAnswer>;
  getLogo(id: string, options?: CallOptions): Promise<LogoAnswer>;
  getTaxPlan(id: string, options?: CallOptions): Promise<TaxPlanAnswer>;
  getAvailability(
    eventId: string,
    query: { levelId?: string; sectionId?: string; detail: 'overview' | 'seats' },
    options?: CallOptions,
  ): Promise<AvailabilityAnswer>;
  createBooking(body: BookingRequest, options?: CallOptions): Promise<BookingAnswer>;
  releaseBooking(inventoryToken: string, options?: CallOptions): Promise<void>;
  createOrder(body: OrderRequest, options?: CallOptions): Promise<OrderAnswer>;
  orderAction(
    inventoryOrderId: string,
    body: OrderActionRequest,
    options?: CallOptions,
  ): Promise<OrderActionAnswer>;
  getOrder(inventoryOrderId: string, options?: CallOptions): Promise<OrderAnswer>;
  listOrders(
    query: {
      inventoryToken?: string;
      eventId?: string;
      start?: string;
      end?: string;
      page?: number;
      size?: number;
    },
    options?: CallOptions,
  ): Promise<OrdersPage>;
}

/** How a partner call failed (what the adapter's errors carry besides their kind). */
export interface PartnerFailure {
  kind: ErrorKind;
  message: string;
  /** 0 when no answer arrived. */
  httpStatus: number;
  partnerErrorId: number | undefined;
  /** No answer to a call that changes state: the partner may have executed it. */
  outcomeUnknown: boolean;
  /** The partner is in trouble (5xx, network, timeout, bad answer, open circuit): worth retrying later. */
  transient: boolean;
  correlationId: string;
}

export function asPartnerFailure(error: unknown): PartnerFailure | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = error as Partial<PartnerFailure>;
  return typeof candidate.transient === 'boolean' && typeof candidate.httpStatus === 'number'
    ? (candidate as PartnerFailure)
    : undefined;
}

export interface PartnerApiFactory {
  /** The API of a partner (clients are cached per partner: token, circuit breaker). */
  forPartner(partner: Partner): PartnerApi;
}

export interface SecretBox {
  /** Id of the key `encrypt` seals with (the first of PARTNER_CREDENTIALS_KEY). */
  readonly keyId: string;
  encrypt(plain: string): EncryptedSecret;
  /** Opens with whichever key of the ring sealed it; throws, naming no value, when none can. */
  decrypt(secret: EncryptedSecret): string;
}

/** One stored record's sealed values, in a fixed order, as the re-seal walks them. */
export interface SealedRecord {
  id: string;
  version: number;
  sealed: EncryptedSecret[];
}

/** A collection holding sealed values: partners' client secrets, imported events' access codes. */
export interface SealedRecordStore {
  /** The collection's name, in the re-seal's report and logs. */
  readonly name: string;
  /** The records whose id sorts after `after`, by id, at most `limit`. */
  page(after: string, limit: number): Promise<SealedRecord[]>;
  get(id: string): Promise<SealedRecord | undefined>;
  /**
   * Compare-and-set at `record.version`: the record's sealed values become `sealed` (same order),
   * nothing else changes and no event is recorded. Kind `aborted` when the version moved.
   */
  reseal(record: SealedRecord, sealed: EncryptedSecret[]): Promise<void>;
}

export interface HealthChange {
  previous: HealthState;
  current: HealthState;
  healthcheckId: number;
  message: string;
  venuesToSync: string[];
  checkedAt: Date;
}

export interface PartnerRepository {
  create(partner: Partner): Promise<Partner>;
  get(id: string): Promise<Partner | undefined>;
  list(): Promise<Partner[]>;
  /** Stores the new state and records `partner-health-changed` with it (outbox). */
  recordHealth(id: string, change: HealthChange): Promise<void>;
}

export interface VenueImportRepository {
  get(partnerId: string, venueId: string): Promise<VenueImportState | undefined>;
  list(partnerId: string): Promise<VenueImportState[]>;
  /** Inserts or replaces (compare-and-set on `version` when it is > 0). */
  save(state: VenueImportState): Promise<VenueImportState>;
}

export interface ImportedEventRepository {
  get(id: string): Promise<ImportedEvent | undefined>;
  findByPartnerEvent(partnerId: string, partnerEventId: string): Promise<ImportedEvent | undefined>;
  /** A new event (unique per partner event: `already_exists` when another import won the race). */
  create(event: ImportedEvent): Promise<ImportedEvent>;
  /** A changed event at `expectedVersion`; records `event-changed` (whole state) with it. */
  replace(event: ImportedEvent, expectedVersion: number): Promise<ImportedEvent>;
  /**
   * Takes the next availability sequence of the event and records `availability-changed` with it;
   * keeps `modification` (the answer's `last_modification`) as `availabilityModification` when it
   * is newer than the one kept (the event's `lastModification` before the first). `newer` tells
   * whether it was, read and written in one compare-and-set, so concurrent checks see it once.
   */
  recordAvailability(
    id: string,
    build: (sequence: number) => AvailabilitySnapshot,
    modification?: Date,
  ): Promise<{ sequence: number; newer: boolean }>;
}

export type ResourceKind = 'manifest' | 'logo' | 'tax_plan';

/** Manifests, logos and tax plans fetched from partners, kept as their JSON answer. */
export interface ResourceRepository {
  get<T>(kind: ResourceKind, partnerId: string, id: string): Promise<T | undefined>;
  put(kind: ResourceKind, partnerId: string, id: string, value: unknown): Promise<void>;
}

export interface CallFailureRepository {
  /** Stores the failure with its `partner-call-failed` event (outbox): it cannot be lost. */
  record(failure: CallFailure): Promise<void>;
}

export interface QueueRepository {
  get(id: string): Promise<QueuedCancel | undefined>;
  /** Inserts; resolves false when the same cancel is already queued. */
  add(entry: QueuedCancel): Promise<boolean>;
  due(now: Date, limit: number): Promise<QueuedCancel[]>;
  list(partnerId?: string): Promise<QueuedCancel[]>;
  /** Compare-and-set; undefined when another worker moved it first. */
  update(entry: QueuedCancel, expectedVersion: number): Promise<QueuedCancel | undefined>;
  remove(id: string, expectedVersion?: number): Promise<void>;
}

export interface Ids {
  eventId(): string;
  partnerId(): string;
  failureId(): string;
}

/** The time, as the platform's kernel defines it. */
export type { Clock } from '@marquee/platform/kernel';

/** Structured log lines of the use cases (pino-compatible shape). */
/** What the import counts beyond what its stores count (adapters/import-metrics.ts). */
export interface ImportMetrics {
  /** A partner event not imported because it breaks a rule of the 3P API. */
  eventRefused(partnerId: string): void;
}

export interface Log {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}
