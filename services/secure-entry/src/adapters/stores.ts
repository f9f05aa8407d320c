import { createOutboxEvent } from '@marquee/platform/outbox';
import type { ServiceStores, VersionedStore } from '@marquee/platform/store';
import { entryV1 } from '@marquee/proto';
import { ticketIssuedTopic, ticketScannedTopic, ticketVoidedTopic } from '@marquee/proto/topics';
import type {
  AdmissionRepository,
  BackfillProgressRepository,
  ErasedFanRepository,
  EventRepository,
  GateRepository,
  OrderRepository,
  ScanLog,
  TicketRepository,
} from '../app/ports.js';
import { errorKindOf, retryingConflicts } from '@marquee/platform/kernel';
import { isConflict, isDuplicate } from '../domain/errors.js';
import type {
  Admission,
  EntryOrder,
  ErasedFan,
  EventTimes,
  Gate,
  ScanRecord,
  ScanResult,
  Ticket,
  VoidReason,
} from '../domain/model.js';

export const COLLECTIONS = {
  orders: 'entry_orders',
  tickets: 'tickets',
  events: 'event_times',
  gates: 'gates',
  admissions: 'admissions',
  scans: 'refused_scans',
  erasedFans: 'erased_fans',
  /** Where one-time passes over the data stand (the fan id backfill of older orders). */
  backfills: 'backfills',
} as const;

/** A refused scan as stored (admissions are the accepted ones). */
interface StoredScan extends ScanRecord {
  id: string;
  version: number;
}

export interface EntryStorage {
  orders: OrderRepository;
  tickets: TicketRepository;
  events: EventRepository;
  gates: GateRepository;
  admissions: AdmissionRepository;
  scans: ScanLog;
  erasedFans: ErasedFanRepository;
  progress: BackfillProgressRepository;
}

const VOID_REASON: Record<VoidReason, entryV1.VoidReason> = {
  ORDER_CANCELLED: entryV1.VoidReason.VOID_REASON_ORDER_CANCELLED,
  RESOLD: entryV1.VoidReason.VOID_REASON_RESOLD,
};

export const scanResultEnum = (result: ScanResult): entryV1.ScanResult =>
  entryV1.ScanResult[`SCAN_RESULT_${result}`];

const renderTypeEnum = (ticket: Ticket) =>
  ticket.renderType === 'rotating_symbology'
    ? entryV1.RenderType.RENDER_TYPE_ROTATING_SYMBOLOGY
    : entryV1.RenderType.RENDER_TYPE_BARCODE;

/** `ticket-issued` of an order's tickets (no barcode, secret or token: those never leave). */
function issuedEvent(order: Omit<EntryOrder, 'version'>, tickets: Ticket[]) {
  const at = tickets[0]?.issuedAt ?? order.confirmedAt;
  return createOutboxEvent(ticketIssuedTopic, {
    key: order.id,
    value: {
      orderId: order.id,
      eventId: order.eventId,
      tickets: tickets.map((t) => ({
        ticketId: t.id,
        partnerTicketId: t.partnerTicketId,
        displayId: t.displayId,
        section: t.section,
        row: t.row,
        seat: t.seat,
        generalAdmission: t.generalAdmission,
        renderType: renderTypeEnum(t),
        tokenAvailableAt: undefined,
      })),
      issuedAt: at,
    },
    time: at,
  });
}

function voidedEvent(
  orderId: string,
  eventId: string,
  ticketIds: string[],
  reason: VoidReason,
  at: Date,
) {
  return createOutboxEvent(ticketVoidedTopic, {
    key: orderId,
    value: { orderId, eventId, ticketIds, reason: VOID_REASON[reason], voidedAt: at },
    time: at,
  });
}

function scannedEvent(scan: ScanRecord) {
  return createOutboxEvent(ticketScannedTopic, {
    key: scan.ticketId || scan.gateId,
    value: {
      ticketId: scan.ticketId,
      partnerTicketId: scan.partnerTicketId,
      orderId: scan.orderId,
      eventId: scan.eventId,
      gateId: scan.gateId,
      result: scanResultEnum(scan.result),
      timeStep: scan.timeStep,
      scannedAt: scan.scannedAt,
    },
    time: scan.scannedAt,
  });
}

/** Every collection of secure-entry (memory or Mongo, chosen by `openServiceStores`). */
export function createEntryStorage(stores: ServiceStores): EntryStorage {
  const orders = stores.collection<EntryOrder>(COLLECTIONS.orders, [
    { fields: { tokenHash: 1 }, unique: true, name: 'token_hash' },
    // A deleted fan's orders (`listByFan`), whose contact is erased.
    { fields: { fanId: 1 } },
  ]);
  const tickets = stores.collection<Ticket>(COLLECTIONS.tickets, [
    { fields: { barcode: 1 }, unique: true, name: 'barcode' },
    { fields: { orderId: 1 } },
    { fields: { eventId: 1, partnerTicketId: 1 } },
  ]);
  const events = stores.collection<EventTimes>(COLLECTIONS.events);
  const gates = stores.collection<Gate>(COLLECTIONS.gates, [{ fields: { eventId: 1 } }]);
  const admissions = stores.collection<Admission>(COLLECTIONS.admissions, [
    { fields: { eventId: 1 } },
    { fields: { eventId: 1, partnerTicketId: 1 } },
  ]);
  const scans = stores.collection<StoredScan>(COLLECTIONS.scans, [{ fields: { ticketId: 1 } }]);
  return {
    orders: orderRepository(orders),
    tickets: ticketRepository(tickets),
    events: eventRepository(events),
    gates: gateRepository(gates),
    admissions: admissionRepository(admissions),
    erasedFans: erasedFanRepository(stores.collection<ErasedFan>(COLLECTIONS.erasedFans)),
    progress: backfillProgressRepository(
      stores.collection<BackfillProgressDoc>(COLLECTIONS.backfills),
    ),
    scans: {
      async record(id, scan) {
        await scans.insert({ id, ...scan }, { events: [scannedEvent(scan)] });
      },
    },
  };
}

function orderRepository(store: VersionedStore<EntryOrder>): OrderRepository {
  return {
    get: (id) => store.get(id),
    async findByTokenHash(tokenHash) {
      const [found] = await store.find({ tokenHash }, { limit: 1 });
      return found;
    },
    async insert(order, issued) {
      try {
        await store.insert(order, issued.length ? { events: [issuedEvent(order, issued)] } : {});
        return true;
      } catch (error) {
        if (isDuplicate(error) && (await store.get(order.id))) return false;
        throw error;
      }
    },
    update(order, voided) {
      const events =
        voided && voided.ticketIds.length
          ? [voidedEvent(order.id, order.eventId, voided.ticketIds, voided.reason, voided.at)]
          : [];
      return store.update(order.id, order.version, order, { events });
    },
    listByFan: (fanId, limit) => store.find({ fanId }, { limit }),
    listWithoutFanId: (after, limit) =>
      store.find({ id: { $gt: after }, fanId: null }, { sort: { id: 1 }, limit }),
  };
}

interface BackfillProgressDoc {
  id: string;
  version: number;
  after: string;
  done: boolean;
}

function backfillProgressRepository(
  store: VersionedStore<BackfillProgressDoc>,
): BackfillProgressRepository {
  return {
    async get(name) {
      const found = await store.get(name);
      return found && { after: found.after, done: found.done, version: found.version };
    },
    async save(name, progress, expectedVersion) {
      try {
        if (expectedVersion === undefined) await store.insert({ id: name, ...progress });
        else await store.update(name, expectedVersion, { id: name, ...progress });
        return true;
      } catch (error) {
        if (isDuplicate(error) || isConflict(error)) return false;
        throw error;
      }
    },
  };
}

function erasedFanRepository(store: VersionedStore<ErasedFan>): ErasedFanRepository {
  return {
    async record(fanId, at) {
      try {
        await store.insert({ id: fanId, erasedAt: at });
      } catch (error) {
        if (!isDuplicate(error)) throw error;
      }
    },
    has: async (fanId) => (await store.get(fanId)) !== undefined,
  };
}

function ticketRepository(store: VersionedStore<Ticket>): TicketRepository {
  return {
    get: (id) => store.get(id),
    listByOrder: (orderId) => store.find({ orderId }, { sort: { id: 1 } }),
    listAfter: (after, limit) => store.find({ id: { $gt: after } }, { sort: { id: 1 }, limit }),
    async getByBarcode(barcode) {
      const [found] = await store.find({ barcode }, { limit: 1 });
      return found;
    },
    findActive: (eventId, partnerTicketIds) =>
      partnerTicketIds.length === 0
        ? Promise.resolve([])
        : store.find({ eventId, partnerTicketId: { $in: partnerTicketIds }, status: 'active' }),
    findBySeats: (eventId, partnerTicketIds) =>
      partnerTicketIds.length === 0
        ? Promise.resolve([])
        : store.find({ eventId, partnerTicketId: { $in: partnerTicketIds } }),
    async insertIfAbsent(ticket) {
      const existing = await store.get(ticket.id);
      if (existing) return existing;
      try {
        return await store.insert(ticket);
      } catch (error) {
        // Same id inserted meanwhile (a redelivery racing): keep that one. A barcode clash rethrows.
        const stored = isDuplicate(error) ? await store.get(ticket.id) : undefined;
        if (stored) return stored;
        throw error;
      }
    },
    update(ticket, voided) {
      const events = voided
        ? [voidedEvent(ticket.orderId, ticket.eventId, [ticket.id], voided.reason, voided.at)]
        : [];
      return store.update(ticket.id, ticket.version, ticket, { events });
    },
  };
}

function eventRepository(store: VersionedStore<EventTimes>): EventRepository {
  return {
    get: (id) => store.get(id),
    async apply(state) {
      await retryingConflicts(async () => {
        const current = await store.get(state.id);
        if (!current) {
          try {
            await store.insert(state);
          } catch (error) {
            if (!isDuplicate(error)) throw error;
            throw Object.assign(new Error('inserted meanwhile'), { kind: 'aborted' });
          }
          return;
        }
        if (current.eventVersion >= state.eventVersion) return;
        await store.update(state.id, current.version, { ...state });
      });
    },
  };
}

function gateRepository(store: VersionedStore<Gate>): GateRepository {
  return {
    insert: (gate) => store.insert(gate),
    get: (id) => store.get(id),
    list: (eventId) => store.find(eventId ? { eventId } : {}, { sort: { createdAt: -1 } }),
    update: (gate) => store.update(gate.id, gate.version, gate),
  };
}

function admissionRepository(store: VersionedStore<Admission>): AdmissionRepository {
  return {
    get: (id) => store.get(id),
    findSeats: (eventId, partnerTicketIds) =>
      partnerTicketIds.length === 0
        ? Promise.resolve([])
        : store.find({ eventId, partnerTicketId: { $in: partnerTicketIds } }),
    async admit(admission, scan) {
      try {
        await store.insert(admission, { events: [scannedEvent(scan)] });
        return undefined;
      } catch (error) {
        if (errorKindOf(error) !== 'already_exists') throw error;
        const earlier = await store.get(admission.id);
        if (!earlier) throw error;
        return earlier;
      }
    },
  };
}
