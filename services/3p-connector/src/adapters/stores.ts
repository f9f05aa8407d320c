import { randomUUID } from 'node:crypto';
import { errorKindOf, retryingConflicts } from '@marquee/platform/kernel';
import { metrics } from '@marquee/platform/metrics';
import { createOutboxEvent } from '@marquee/platform/outbox';
import type { ServiceStores, VersionedStore } from '@marquee/platform/store';
import { catalogV1, type partnerV1 } from '@marquee/proto';
import {
  availabilityChangedTopic,
  eventChangedTopic,
  partnerCallFailedTopic,
  partnerHealthChangedTopic,
} from '@marquee/proto/topics';
import type {
  CallFailureRepository,
  ImportedEventRepository,
  PartnerRepository,
  QueueRepository,
  ResourceRepository,
  SealedRecordStore,
  SecretBox,
  VenueImportRepository,
} from '../app/ports.js';
import type { QueuedCancel } from '../domain/cancel-queue.js';
import { fromCatalogEventMessage, toCatalogEventMessage } from './proto/event-message.js';
import { sealedRecords } from './sealed-records.js';
import { toAvailabilityChanged, toPartnerCallFailed } from './proto/kafka-messages.js';
import type { ImportedEvent } from '../domain/imported-event.js';
import {
  venueImportId,
  type EncryptedSecret,
  type HealthState,
  type Partner,
  type VenueImportState,
} from '../domain/partner.js';

interface StoredImportedEvent {
  id: string;
  version: number;
  partnerId: string;
  partnerEventId: string;
  partnerVenueId: string;
  lastModification: Date;
  partnerStatus: string;
  manifestId: string;
  /** Encrypted like client secrets: access codes are passwords. */
  accessCodes: { priceTypeId: string; code: EncryptedSecret }[];
  /** The discovery event as protobuf (its oneofs have `$case` keys, which documents cannot hold). */
  eventBytes: Uint8Array;
  availabilitySequence: number;
  availabilityModification?: Date;
  createdAt: Date;
  updatedAt: Date;
}

interface StoredResource {
  id: string;
  version: number;
  kind: string;
  partnerId: string;
  json: string;
  fetchedAt: Date;
}

interface StoredCallFailure {
  id: string;
  version: number;
  partnerId: string;
  operation: string;
  key: string;
  outcomeUnknown: boolean;
  failedAt: Date;
}

export const COLLECTIONS = {
  partners: 'partners',
  venueImports: 'venue_imports',
  importedEvents: 'imported_events',
  resources: 'partner_resources',
  callFailures: 'call_failures',
  queuedCalls: 'queued_calls',
} as const;

const HEALTH_ENUM: Record<HealthState, partnerV1.PartnerHealth> = {
  UNSPECIFIED: 'PARTNER_HEALTH_UNSPECIFIED' as partnerV1.PartnerHealth,
  HEALTHY: 'PARTNER_HEALTH_HEALTHY' as partnerV1.PartnerHealth,
  UNAVAILABLE: 'PARTNER_HEALTH_UNAVAILABLE' as partnerV1.PartnerHealth,
  SYNC_REQUIRED: 'PARTNER_HEALTH_SYNC_REQUIRED' as partnerV1.PartnerHealth,
  UNREACHABLE: 'PARTNER_HEALTH_UNREACHABLE' as partnerV1.PartnerHealth,
  UNAUTHORIZED: 'PARTNER_HEALTH_UNAUTHORIZED' as partnerV1.PartnerHealth,
};
export const healthEnum = (state: HealthState): partnerV1.PartnerHealth => HEALTH_ENUM[state];

export interface ConnectorStorage {
  partners: PartnerRepository;
  venueImports: VenueImportRepository;
  importedEvents: ImportedEventRepository;
  resources: ResourceRepository;
  callFailures: CallFailureRepository;
  queue: QueueRepository;
  /** Every collection holding values sealed with PARTNER_CREDENTIALS_KEY (the re-seal walks them). */
  sealed: SealedRecordStore[];
}

/** Every collection of the connector (memory or Mongo, chosen by `openServiceStores`). */
/**
 * Partner events imported into the catalogue, counted when written with their `event-changed`
 * (created or updated; an event not modified since its last import is not written, not counted).
 */
const importedEvents = metrics.counter('marquee_imported_events', {
  description: 'Partner events imported into the catalogue, by partner and change',
});

export function createConnectorStorage(
  stores: ServiceStores,
  secrets: SecretBox,
): ConnectorStorage {
  const partners = stores.collection<Partner>(COLLECTIONS.partners);
  const venueImports = stores.collection<VenueImportState>(COLLECTIONS.venueImports, [
    { fields: { partnerId: 1 } },
  ]);
  const importedEvents = stores.collection<StoredImportedEvent>(COLLECTIONS.importedEvents, [
    { fields: { partnerId: 1, partnerEventId: 1 }, unique: true, name: 'partner_event' },
  ]);
  const resources = stores.collection<StoredResource>(COLLECTIONS.resources);
  const callFailures = stores.collection<StoredCallFailure>(COLLECTIONS.callFailures, [
    { fields: { failedAt: 1 } },
  ]);
  const queuedCalls = stores.collection<QueuedCancel>(COLLECTIONS.queuedCalls, [
    { fields: { nextAttemptAt: 1 }, due: true },
    { fields: { partnerId: 1 } },
  ]);
  return {
    partners: partnerRepository(partners),
    venueImports: venueImportRepository(venueImports),
    importedEvents: importedEventRepository(importedEvents, secrets),
    resources: resourceRepository(resources),
    callFailures: callFailureRepository(callFailures),
    queue: queueRepository(queuedCalls),
    sealed: [
      sealedRecords(
        COLLECTIONS.partners,
        partners,
        (partner) => [partner.clientSecret],
        (partner, [clientSecret]) => ({
          ...partner,
          clientSecret: clientSecret ?? partner.clientSecret,
        }),
      ),
      sealedRecords(
        COLLECTIONS.importedEvents,
        importedEvents,
        (event) => event.accessCodes.map((c) => c.code),
        (event, codes) => ({
          ...event,
          accessCodes: event.accessCodes.map((c, i) => ({ ...c, code: codes[i] ?? c.code })),
        }),
      ),
    ],
  };
}

function partnerRepository(store: VersionedStore<Partner>): PartnerRepository {
  return {
    create: (partner) => store.insert(partner),
    get: (id) => store.get(id),
    list: () => store.find({}, { sort: { createdAt: 1 } }),
    async recordHealth(id, change) {
      const event = createOutboxEvent(partnerHealthChangedTopic, {
        key: id,
        value: {
          partnerId: id,
          previous: healthEnum(change.previous),
          current: healthEnum(change.current),
          healthcheckId: change.healthcheckId,
          message: change.message,
          venuesToSync: change.venuesToSync,
          checkedAt: change.checkedAt,
        },
        time: change.checkedAt,
      });
      await retryingConflicts(async () => {
        const current = await store.get(id);
        if (!current) return;
        await store.update(
          id,
          current.version,
          {
            ...current,
            health: change.current,
            healthMessage: change.message,
            healthCheckedAt: change.checkedAt,
          },
          { events: [event] },
        );
      });
    },
  };
}

function venueImportRepository(store: VersionedStore<VenueImportState>): VenueImportRepository {
  return {
    get: (partnerId, venueId) => store.get(venueImportId(partnerId, venueId)),
    list: (partnerId) => store.find({ partnerId }, { sort: { venueId: 1 } }),
    async save(state) {
      if (state.version > 0) return store.update(state.id, state.version, state);
      try {
        return await store.insert(state);
      } catch (error) {
        if (errorKindOf(error) !== 'already_exists') throw error;
        return (await store.get(state.id))!;
      }
    },
  };
}

/** The stored form: access codes encrypted, the event as its protobuf bytes. */
const toStoredEvent = (event: ImportedEvent, secrets: SecretBox): StoredImportedEvent => ({
  id: event.id,
  version: event.version,
  partnerId: event.partnerId,
  partnerEventId: event.partnerEventId,
  partnerVenueId: event.partnerVenueId,
  lastModification: event.lastModification,
  partnerStatus: event.partnerStatus,
  manifestId: event.manifestId,
  accessCodes: event.accessCodes.map((c) => ({
    priceTypeId: c.priceTypeId,
    code: secrets.encrypt(c.code),
  })),
  eventBytes: catalogV1.Event.encode(toCatalogEventMessage(event.event)).finish(),
  availabilitySequence: event.availabilitySequence,
  ...(event.availabilityModification
    ? { availabilityModification: event.availabilityModification }
    : {}),
  createdAt: event.createdAt,
  updatedAt: event.updatedAt,
});
const fromStoredEvent = (stored: StoredImportedEvent, secrets: SecretBox): ImportedEvent => ({
  id: stored.id,
  version: stored.version,
  partnerId: stored.partnerId,
  partnerEventId: stored.partnerEventId,
  partnerVenueId: stored.partnerVenueId,
  lastModification: stored.lastModification,
  partnerStatus: stored.partnerStatus,
  manifestId: stored.manifestId,
  accessCodes: stored.accessCodes.map((c) => ({
    priceTypeId: c.priceTypeId,
    code: secrets.decrypt(c.code),
  })),
  event: fromCatalogEventMessage(catalogV1.Event.decode(stored.eventBytes)),
  availabilitySequence: stored.availabilitySequence,
  ...(stored.availabilityModification
    ? { availabilityModification: new Date(stored.availabilityModification) }
    : {}),
  createdAt: stored.createdAt,
  updatedAt: stored.updatedAt,
});

function importedEventRepository(
  store: VersionedStore<StoredImportedEvent>,
  secrets: SecretBox,
): ImportedEventRepository {
  const toStored = (event: ImportedEvent) => toStoredEvent(event, secrets);
  const fromStored = (stored: StoredImportedEvent) => fromStoredEvent(stored, secrets);
  const changed = (event: ImportedEvent) =>
    createOutboxEvent(eventChangedTopic, {
      key: event.id,
      value: { event: toCatalogEventMessage(event.event), changedAt: event.updatedAt },
      time: event.updatedAt,
    });
  return {
    async get(id) {
      const stored = await store.get(id);
      return stored && fromStored(stored);
    },
    async findByPartnerEvent(partnerId, partnerEventId) {
      const [stored] = await store.find({ partnerId, partnerEventId }, { limit: 1 });
      return stored && fromStored(stored);
    },
    async create(event) {
      const created = fromStored(await store.insert(toStored(event), { events: [changed(event)] }));
      importedEvents.add(1, { partner: event.partnerId, change: 'created' });
      return created;
    },
    async replace(event, expectedVersion) {
      const replaced = fromStored(
        await store.update(event.id, expectedVersion, toStored(event), {
          events: [changed(event)],
        }),
      );
      importedEvents.add(1, { partner: event.partnerId, change: 'updated' });
      return replaced;
    },
    async recordAvailability(id, build, modification) {
      return retryingConflicts(async () => {
        const current = await store.get(id);
        if (!current)
          throw Object.assign(new Error(`event ${id} not found`), { kind: 'not_found' });
        const sequence = current.availabilitySequence + 1;
        const message = toAvailabilityChanged(build(sequence));
        const seen = (current.availabilityModification ?? current.lastModification).getTime();
        const newer = modification !== undefined && modification.getTime() > seen;
        const availabilityModification = newer ? { availabilityModification: modification } : {};
        await store.update(
          id,
          current.version,
          { ...current, availabilitySequence: sequence, ...availabilityModification },
          {
            events: [
              createOutboxEvent(availabilityChangedTopic, {
                key: id,
                value: message,
                ...(message.observedAt ? { time: message.observedAt } : {}),
              }),
            ],
          },
        );
        return { sequence, newer };
      });
    },
  };
}

function resourceRepository(store: VersionedStore<StoredResource>): ResourceRepository {
  const idOf = (kind: string, partnerId: string, id: string) => `${kind}/${partnerId}/${id}`;
  return {
    async get<T>(kind: string, partnerId: string, id: string) {
      const stored = await store.get(idOf(kind, partnerId, id));
      return stored && (JSON.parse(stored.json) as T);
    },
    async put(kind, partnerId, id, value) {
      const key = idOf(kind, partnerId, id);
      const doc = { id: key, kind, partnerId, json: JSON.stringify(value), fetchedAt: new Date() };
      await retryingConflicts(async () => {
        const current = await store.get(key);
        if (current) await store.update(key, current.version, doc);
        else await store.insert(doc);
      });
    },
  };
}

function callFailureRepository(store: VersionedStore<StoredCallFailure>): CallFailureRepository {
  return {
    async record(failure) {
      const message = toPartnerCallFailed(failure);
      const key =
        failure.orderId || failure.cartId || failure.inventoryOrderId || failure.partnerId;
      const failedAt = failure.failedAt;
      await store.insert(
        {
          id: randomUUID(),
          partnerId: failure.partnerId,
          operation: message.operation,
          key,
          outcomeUnknown: failure.outcomeUnknown,
          failedAt,
        },
        {
          events: [
            createOutboxEvent(partnerCallFailedTopic, { key, value: message, time: failedAt }),
          ],
        },
      );
    },
  };
}

function queueRepository(store: VersionedStore<QueuedCancel>): QueueRepository {
  return {
    get: (id) => store.get(id),
    async add(entry) {
      try {
        await store.insert(entry);
        return true;
      } catch (error) {
        if (errorKindOf(error) === 'already_exists') return false;
        throw error;
      }
    },
    due: (now, limit) =>
      store.find({ nextAttemptAt: { $lte: now } }, { sort: { nextAttemptAt: 1 }, limit }),
    list: (partnerId) => store.find(partnerId ? { partnerId } : {}, { sort: { queuedAt: 1 } }),
    async update(entry, expectedVersion) {
      try {
        return await store.update(entry.id, expectedVersion, entry);
      } catch (error) {
        if (errorKindOf(error) === 'aborted' || errorKindOf(error) === 'not_found')
          return undefined;
        throw error;
      }
    },
    async remove(id, expectedVersion) {
      try {
        await store.delete(id, expectedVersion);
      } catch (error) {
        if (errorKindOf(error) !== 'aborted') throw error;
      }
    },
  };
}
