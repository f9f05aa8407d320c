import { encodeToken, parsePayload, codeAt, type EntryPayload } from '@marquee/render-kit/format';
import { retryingConflicts } from '@marquee/platform/kernel';
import { EntryError, isDuplicate } from '../domain/errors.js';
import { displayIdOf, orderRecord, planTickets, type ConfirmedOrder } from '../domain/issue.js';
import {
  BARCODE_SEGMENT,
  ROTATING_SEGMENT,
  seatKeyOf,
  type Admission,
  type DeviceBinding,
  type EntryOrder,
  type FixedPart,
  type Gate,
  type ScanRecord,
  type ScanResult,
  type Ticket,
} from '../domain/model.js';
import {
  attributeMismatch,
  missingAttribute,
  pkPassIdOf,
  type RenderRefusal,
  type RenderRequestTicket,
} from '../domain/render-request.js';
import { stepIsCurrent, stepOfSeconds } from '../domain/scan.js';
import { DEFAULT_SCAN_LIMITS, ScanThrottle, type ScanLimits } from '../domain/scan-throttle.js';
import { refreshDue, tokenAvailableAt } from '../domain/timing.js';
import type {
  AdmissionRepository,
  Clock,
  EntryCrypto,
  EventRepository,
  GateRepository,
  Log,
  OrderRepository,
  Randomness,
  ScanLog,
  TicketRepository,
} from './ports.js';
import { Gates } from './gates.js';
import type {
  DeviceInput,
  OrderReadInput,
  OrderView,
  RenderedTicketView,
  RenderInput,
  ScanOutcome,
  TicketView,
} from './views.js';

export interface SecureEntryDeps {
  orders: OrderRepository;
  tickets: TicketRepository;
  events: EventRepository;
  gates: GateRepository;
  admissions: AdmissionRepository;
  scans: ScanLog;
  crypto: EntryCrypto;
  random: Randomness;
  clock: Clock;
  log: Log;
  refreshHours: number;
  delayHours: number;
  gateCacheMs: number;
  /** Per-gate bounds of scans and FORGED scans a minute (absent: the defaults). */
  scanLimits?: ScanLimits;
}

/** A scan being judged: the gate, when, and the time step its payload names. */
interface ScanContext {
  gate: Gate;
  now: Date;
  step: number;
}

/** A scan that passed every check, or the refusal of the first that failed. */
type ScanCheck = { ok: true; ticket: Ticket } | { ok: false; result: ScanResult; ticket?: Ticket };

const notFound = () =>
  new EntryError('not_found', 'No order matches this order token', { reason: 'order_not_found' });

/** Partner ticket ids one `admittedSeats` call may ask about. */
export const MAX_SEATS_PER_QUERY = 100;

/**
 * The use cases of secure-entry: issuing and voiding tickets from the order topics, the order read
 * and secure render of the partner cart API, gate scans and gate administration.
 */
export class SecureEntry {
  private readonly gates: Gates;

  private readonly scanThrottle: ScanThrottle;

  constructor(private readonly deps: SecureEntryDeps) {
    this.scanThrottle = new ScanThrottle(deps.scanLimits ?? DEFAULT_SCAN_LIMITS);
    this.gates = new Gates(deps);
  }

  // ---------------------------------------------------------------- issuing (order-confirmed)

  /** Issues the tickets of a confirmed order. Idempotent: a redelivery converges on the same state. */
  async confirm(order: ConfirmedOrder): Promise<void> {
    const { orders } = this.deps;
    const existing = await orders.get(order.orderId);
    if (existing?.cancelledBeforeConfirm) {
      // The cancel overtook the confirmation (two topics, no order between them): nothing is issued.
      if (existing.tokenHash !== order.tokenHash) {
        await retryingConflicts(async () => {
          const current = (await orders.get(order.orderId))!;
          await orders.update({
            ...current,
            ...orderRecord(order, []),
            voided: true,
            voidedAt: current.voidedAt ?? this.now(),
            cancelledBeforeConfirm: true,
          });
        });
      }
      return;
    }
    // A resale: the seller's tickets stop admitting before the buyer's exist, so no moment has
    // both valid (idempotent, so a redelivery after a crash finishes it).
    if (order.replaces.length > 0) await this.voidResold(order);
    if (!existing) {
      const tickets: Ticket[] = [];
      for (const planned of planTickets(order)) {
        tickets.push(await this.insertTicket(order, planned));
      }
      const inserted = await orders.insert(
        orderRecord(
          order,
          tickets.map((t) => t.id),
        ),
        tickets,
      );
      if (inserted) {
        this.deps.log.info(
          { order_id: order.orderId, tickets: tickets.length, secure_entry: order.secureEntry },
          'tickets issued',
        );
      }
    }
  }

  private async insertTicket(
    order: ConfirmedOrder,
    planned: ReturnType<typeof planTickets>[number],
  ): Promise<Ticket> {
    for (let attempt = 1; ; attempt += 1) {
      const barcode = this.deps.random.barcode();
      const now = order.confirmedAt ?? this.now();
      try {
        return await this.deps.tickets.insertIfAbsent({
          ...planned,
          orderId: order.orderId,
          eventId: order.eventId,
          barcode,
          displayId: displayIdOf(barcode),
          secret: this.deps.crypto.encryptSecret(this.deps.random.ticketSecret()),
          generation: 1,
          generationAt: now,
          status: 'active',
          issuedAt: now,
        });
      } catch (error) {
        // A barcode drawn twice (16 random digits): draw again.
        if (!isDuplicate(error) || attempt >= 5) throw error;
      }
    }
  }

  /** A resale: the replaced tickets of their previous owners stop admitting. */
  private async voidResold(order: ConfirmedOrder): Promise<void> {
    const previous = await this.deps.tickets.findActive(order.eventId, order.replaces);
    const at = this.now();
    for (const ticket of previous) {
      if (ticket.orderId === order.orderId) continue;
      await this.voidTicket(ticket.id, 'RESOLD', at);
    }
  }

  private async voidTicket(id: string, reason: 'RESOLD' | 'ORDER_CANCELLED', at: Date) {
    await retryingConflicts(async () => {
      const current = await this.deps.tickets.get(id);
      if (!current || current.status === 'voided') return;
      await this.deps.tickets.update(
        { ...current, status: 'voided', voidReason: reason, voidedAt: at },
        { reason, at },
      );
    });
  }

  // ---------------------------------------------------------------- voiding (order-cancelled)

  /**
   * Voids the tickets of a partial cancel: only the order's entry tickets whose partner ticket id
   * is in `partnerTicketIds`, each with its `ticket-voided`; the order and its other tickets stay
   * valid. Idempotent. An order not issued yet throws (the record is retried): a partial cancel
   * is made on a confirmed order, so its `order-confirmed` is on its way.
   */
  async cancelTickets(
    orderId: string,
    partnerTicketIds: readonly string[],
    at: Date,
  ): Promise<void> {
    const order = await this.deps.orders.get(orderId);
    if (!order) throw new Error(`order ${orderId} is not issued yet; its partial cancel waits`);
    const wanted = new Set(partnerTicketIds);
    let voided = 0;
    for (const ticket of await this.deps.tickets.listByOrder(orderId)) {
      if (!wanted.has(ticket.partnerTicketId) || ticket.status === 'voided') continue;
      await this.voidTicket(ticket.id, 'ORDER_CANCELLED', at);
      voided += 1;
    }
    this.deps.log.info(
      { order_id: orderId, tickets: voided },
      'tickets of a partial cancel voided',
    );
  }

  /** Voids an order's tickets. Idempotent; a cancel that arrives first leaves a marker. */
  async cancel(orderId: string, eventId: string, at: Date): Promise<void> {
    const { orders } = this.deps;
    const order = await orders.get(orderId);
    if (!order) {
      const inserted = await orders.insert(
        {
          id: orderId,
          tokenHash: `cancelled:${orderId}`,
          appId: '',
          eventId,
          partnerId: '',
          customerEmail: '',
          thirdPartyAccountId: '',
          delivery: { id: '', carrier: '', serviceLevel: '', description: '' },
          sandbox: false,
          secureEntry: false,
          confirmedAt: at,
          ticketIds: [],
          voided: true,
          voidedAt: at,
          cancelledBeforeConfirm: true,
        },
        [],
      );
      if (inserted) return;
      return this.cancel(orderId, eventId, at);
    }
    // Tickets first, the order last: an order that reads as voided has no ticket left that a
    // gate would admit. Each step is a compare-and-set, so a redelivery finishes what a crash left.
    const voidedIds: string[] = [];
    for (const ticket of await this.deps.tickets.listByOrder(orderId)) {
      const after = await retryingConflicts(async () => {
        const current = await this.deps.tickets.get(ticket.id);
        if (!current || current.status === 'voided') return current;
        return this.deps.tickets.update({
          ...current,
          status: 'voided',
          voidReason: 'ORDER_CANCELLED',
          voidedAt: at,
        });
      });
      // A ticket resold away was voided for its resale, not by this cancel.
      if (after?.voidReason === 'ORDER_CANCELLED') voidedIds.push(after.id);
    }
    if (!order.voided) {
      // `ticket-voided` (one record for the order) goes out with the order's own write.
      await retryingConflicts(async () => {
        const current = (await orders.get(orderId))!;
        if (current.voided) return;
        await orders.update(
          { ...current, voided: true, voidedAt: at },
          { ticketIds: voidedIds, reason: 'ORDER_CANCELLED', at },
        );
      });
    }
    this.deps.log.info({ order_id: orderId, tickets: voidedIds.length }, 'tickets voided');
  }

  /** The start time of an event (projection of `event-changed`). */
  async eventChanged(state: {
    id: string;
    eventVersion: number;
    startsAt?: Date;
    deleted: boolean;
  }): Promise<void> {
    await this.deps.events.apply(state);
  }

  // ---------------------------------------------------------------- order read

  async getOrder(input: OrderReadInput): Promise<OrderView> {
    if (!input.orderToken) throw notFound();
    const found = await this.deps.orders.findByTokenHash(
      this.deps.crypto.sha256Hex(input.orderToken),
    );
    // Only the app that sold the order (the buyer's app after a resale) finds it; any other app is
    // told what an unknown token is told, before any device is bound.
    if (
      !found ||
      found.cancelledBeforeConfirm ||
      found.sandbox !== input.sandbox ||
      !found.appId ||
      found.appId !== input.appId
    ) {
      throw notFound();
    }
    if (found.thirdPartyAccountId && found.thirdPartyAccountId !== input.thirdPartyAccountId) {
      throw new EntryError(
        'permission_denied',
        'third_party_account_id is not the one given with the payment',
        { reason: 'account_mismatch' },
      );
    }
    const order = await this.bindDevice(found, input.device);
    const now = this.now();
    const event = await this.deps.events.get(order.eventId);
    const availableAt = tokenAvailableAt(event?.startsAt, this.deps.delayHours, now);
    const tickets = await this.deps.tickets.listByOrder(order.id);
    const views: TicketView[] = [];
    for (const ticket of tickets) {
      if (ticket.status === 'voided') {
        views.push({ ticket, token: '', error: { code: 410, message: 'ticket.voided' } });
      } else if (availableAt) {
        views.push({
          ticket,
          token: '',
          error: {
            code: 425,
            message: `token.delayed: available from ${availableAt.toISOString()}`,
          },
        });
      } else {
        const current = await this.refreshIfDue(ticket, event?.startsAt, now);
        views.push({ ticket: current, token: this.tokenFor(current, order, now) });
      }
    }
    return { order, tickets: views, ...(availableAt ? { tokenAvailableAt: availableAt } : {}) };
  }

  /** Binds the order's tickets to the first device that reads them; refuses every other device. */
  private async bindDevice(order: EntryOrder, device: DeviceInput): Promise<EntryOrder> {
    return retryingConflicts(async () => {
      const current = (await this.deps.orders.get(order.id)) ?? order;
      if (current.device) {
        if (current.device.id !== device.id) {
          throw new EntryError(
            'permission_denied',
            'The tickets of this order are bound to another device',
            { reason: 'device_not_bound' },
          );
        }
        return current;
      }
      const binding: DeviceBinding = { ...device, boundAt: this.now() };
      return this.deps.orders.update({ ...current, device: binding });
    });
  }

  /** Re-keys a ticket shown within the refresh window of its event for the first time. */
  private async refreshIfDue(ticket: Ticket, startsAt: Date | undefined, now: Date) {
    if (!refreshDue(startsAt, this.deps.refreshHours, ticket.generationAt, now)) return ticket;
    return retryingConflicts(async () => {
      const current = (await this.deps.tickets.get(ticket.id))!;
      if (!refreshDue(startsAt, this.deps.refreshHours, current.generationAt, now)) return current;
      return this.deps.tickets.update({
        ...current,
        generation: current.generation + 1,
        generationAt: now,
      });
    });
  }

  /** A token of `ticket` for the order's bound device; a sandbox order's says so in its seal. */
  private tokenFor(ticket: Ticket, order: EntryOrder, now: Date): string {
    const device: DeviceBinding = order.device!;
    const issuedAt = Math.floor(now.getTime() / 1000);
    const fixed: FixedPart = {
      ticketId: ticket.id,
      barcode: ticket.barcode,
      eventId: ticket.eventId,
      generation: ticket.generation,
      issuedAt,
      sandbox: order.sandbox,
    };
    const rotating = ticket.renderType === 'rotating_symbology';
    return encodeToken({
      version: 1,
      barcode: ticket.barcode,
      eventId: ticket.eventId,
      renderType: ticket.renderType,
      segmentType: rotating ? ROTATING_SEGMENT : BARCODE_SEGMENT,
      issuedAt,
      rotatingSecrets: rotating ? this.secretsOf(ticket, device.id) : [],
      fixed: this.deps.crypto.seal(fixed),
    });
  }

  private secretsOf(ticket: Ticket, deviceId: string): [string, string] {
    return this.deps.crypto.rotatingSecrets(
      this.deps.crypto.decryptSecret(ticket.secret),
      ticket.generation,
      deviceId,
    );
  }

  // ---------------------------------------------------------------- secure render

  async secureRender(input: RenderInput): Promise<RenderedTicketView[]> {
    const now = this.now();
    const out: RenderedTicketView[] = [];
    for (const request of input.tickets) {
      out.push(await this.renderOne(input, request, now));
    }
    return out;
  }

  private async renderOne(
    input: RenderInput,
    request: RenderRequestTicket,
    now: Date,
  ): Promise<RenderedTicketView> {
    const refuse = (refusal: RenderRefusal): RenderedTicketView => ({
      request,
      token: '',
      renderType: '',
      pkPassId: '',
      refusal,
    });
    const missing = missingAttribute(request);
    if (missing) return refuse(missing);
    const ticket = await this.deps.tickets.getByBarcode(request.barcode);
    const order = ticket && (await this.deps.orders.get(ticket.orderId));
    // Another app's ticket is as unknown as a wrong barcode (the buyer's app after a resale).
    if (
      !ticket ||
      !order ||
      order.sandbox !== input.sandbox ||
      !order.appId ||
      order.appId !== input.appId
    ) {
      return refuse({ code: 404, error: 'ticket.not.found' });
    }
    const mismatch = attributeMismatch(request, ticket);
    if (mismatch) return refuse(mismatch);
    if (order.thirdPartyAccountId !== input.userId) {
      return refuse({ code: 403, error: 'user.not.authorized' });
    }
    if (ticket.status === 'voided') return refuse({ code: 410, error: 'ticket.voided' });
    let bound: EntryOrder;
    try {
      bound = await this.bindDevice(order, input.device);
    } catch (error) {
      if ((error as EntryError).kind === 'permission_denied') {
        return refuse({ code: 403, error: 'device.not.authorized' });
      }
      throw error;
    }
    const event = await this.deps.events.get(ticket.eventId);
    if (tokenAvailableAt(event?.startsAt, this.deps.delayHours, now)) {
      return refuse({ code: 425, error: 'token.delayed' });
    }
    const current = await this.refreshIfDue(ticket, event?.startsAt, now);
    return {
      request,
      token: this.tokenFor(current, bound, now),
      renderType: current.renderType,
      pkPassId: pkPassIdOf(current.id),
    };
  }

  // ---------------------------------------------------------------- gate scans

  /** Authenticates a gate token (`mqg_<gate id>.<secret>`); kind `unauthenticated` otherwise. */
  authenticateGate(token: string): Promise<Gate> {
    return this.gates.authenticate(token);
  }

  /**
   * One scan: the payload must open (sealed by secure-entry), name a ticket of the gate's event
   * that is active and of the current key generation, and carry both codes of a time step within
   * one step of now. The first such scan admits the ticket's seat; every later one is refused,
   * whichever owner's ticket of the seat it shows. A sandbox order's ticket is never admitted.
   */
  async validateScan(gateToken: string, payloadText: string): Promise<ScanOutcome> {
    const gate = await this.authenticateGate(gateToken);
    const now = this.now();
    const wait = this.scanThrottle.admit(gate.id, now.getTime());
    if (wait !== undefined) {
      throw new EntryError('resource_exhausted', 'Too many scans from this gate; retry later', {
        retryAfterMs: wait,
      });
    }
    let payload: EntryPayload | undefined;
    try {
      payload = parsePayload(payloadText);
    } catch {
      payload = undefined;
    }
    const step = payload?.timestamp !== undefined ? stepOfSeconds(payload.timestamp) : 0;
    const scan: ScanContext = { gate, now, step };
    const checked = await this.checkScan(scan, payload);
    if (!checked.ok) return this.refuse(scan, checked.result, checked.ticket);
    return this.admit(scan, checked.ticket, payloadText);
  }

  /** The checks of a scan before admission, in order; the first that fails names the refusal. */
  private async checkScan(
    { gate, now, step }: ScanContext,
    payload: EntryPayload | undefined,
  ): Promise<ScanCheck> {
    const refused = (result: ScanResult, ticket?: Ticket): ScanCheck => ({
      ok: false,
      result,
      ...(ticket ? { ticket } : {}),
    });
    const fixed = payload && this.deps.crypto.open(payload.fixed);
    if (!payload || !fixed) return refused('FORGED');
    // Pre-production tickets carry real event ids; the seal says sandbox, and so does the order
    // (for tokens sealed before the seal carried it).
    if (fixed.sandbox) return refused('SANDBOX');
    if (fixed.eventId !== gate.eventId) return refused('WRONG_EVENT');
    const ticket = await this.deps.tickets.get(fixed.ticketId);
    if (!ticket || !this.deps.crypto.equal(ticket.barcode, fixed.barcode)) return refused('FORGED');
    const order = await this.deps.orders.get(ticket.orderId);
    if (order?.sandbox) return refused('SANDBOX', ticket);
    const rotating = ticket.renderType === 'rotating_symbology';
    if (rotating !== (payload.codes !== undefined)) return refused('FORGED', ticket);
    if (rotating && !stepIsCurrent(step, now.getTime())) return refused('EXPIRED', ticket);
    if (ticket.status === 'voided') return refused('VOIDED', ticket);
    if (ticket.generation !== fixed.generation) return refused('SUPERSEDED', ticket);
    if (rotating && !this.codesMatch(ticket, order, step, payload.codes!)) {
      return refused('FORGED', ticket);
    }
    return { ok: true, ticket };
  }

  /** Both rotating codes of the step, derived for the device the order is bound to. */
  private codesMatch(
    ticket: Ticket,
    order: EntryOrder | undefined,
    step: number,
    [code1, code2]: [string, string],
  ): boolean {
    if (!order?.device) return false;
    const [first, second] = this.secretsOf(ticket, order.device.id);
    return (
      this.deps.crypto.equal(codeAt(first, step), code1) &&
      this.deps.crypto.equal(codeAt(second, step), code2)
    );
  }

  /** Logs a refused scan (a FORGED one also counts against the gate) and answers it. */
  private async refuse(
    { gate, now, step }: ScanContext,
    result: ScanResult,
    ticket?: Ticket,
  ): Promise<ScanOutcome> {
    if (result === 'FORGED') this.scanThrottle.forged(gate.id, now.getTime());
    await this.deps.scans.record(this.deps.random.scanId(), {
      ticketId: ticket?.id ?? '',
      partnerTicketId: ticket?.partnerTicketId ?? '',
      orderId: ticket?.orderId ?? '',
      eventId: gate.eventId,
      gateId: gate.id,
      result,
      timeStep: step,
      scannedAt: now,
    });
    return { result, gate, ...(ticket ? { ticket } : {}) };
  }

  /** Admits the ticket's seat unless an earlier scan did; that one's admission is answered then. */
  private async admit(
    scan: ScanContext,
    ticket: Ticket,
    payloadText: string,
  ): Promise<ScanOutcome> {
    const { gate, now, step } = scan;
    const record: ScanRecord = {
      ticketId: ticket.id,
      partnerTicketId: ticket.partnerTicketId,
      orderId: ticket.orderId,
      eventId: gate.eventId,
      gateId: gate.id,
      result: 'ADMITTED',
      timeStep: step,
      scannedAt: now,
    };
    const payloadHash = this.deps.crypto.sha256Hex(payloadText.trim());
    const seatKey = seatKeyOf(ticket);
    // Admissions recorded before seats were keyed have the ticket id as their id.
    const legacy = seatKey === ticket.id ? undefined : await this.deps.admissions.get(ticket.id);
    const earlier: Admission | undefined =
      legacy ??
      (await this.deps.admissions.admit(
        {
          id: seatKey,
          ticketId: ticket.id,
          partnerTicketId: ticket.partnerTicketId,
          orderId: ticket.orderId,
          eventId: gate.eventId,
          gateId: gate.id,
          timeStep: step,
          payloadHash,
          admittedAt: now,
        },
        record,
      ));
    if (!earlier) return { result: 'ADMITTED', gate, ticket, admittedAt: now, admittedBy: gate.id };
    // The same payload again is a replay; another owner's ticket of the seat, or another payload
    // of this one, is already admitted.
    const result: ScanResult =
      earlier.ticketId === ticket.id && earlier.payloadHash === payloadHash
        ? 'REPLAYED'
        : 'ALREADY_ADMITTED';
    const refused = await this.refuse(scan, result, ticket);
    return { ...refused, admittedAt: earlier.admittedAt, admittedBy: earlier.gateId };
  }

  /**
   * The admitted seats of an event among these partner ticket ids, under any owner (cart's resale
   * refuses to list them).
   */
  async admittedSeats(eventId: string, partnerTicketIds: string[]): Promise<Admission[]> {
    if (!eventId) throw new EntryError('invalid_argument', 'event_id is required');
    const ids = [...new Set(partnerTicketIds.filter((id) => id !== ''))];
    if (ids.length > MAX_SEATS_PER_QUERY) {
      throw new EntryError(
        'invalid_argument',
        `at most ${MAX_SEATS_PER_QUERY} partner ticket ids per call`,
      );
    }
    const admitted = await this.deps.admissions.findSeats(eventId, ids);
    // Admissions recorded before seats were keyed have no partner ticket id: found by the tickets
    // of the seats not found yet.
    const found = new Set(admitted.map((a) => a.partnerTicketId));
    const rest = ids.filter((id) => !found.has(id));
    for (const ticket of await this.deps.tickets.findBySeats(eventId, rest)) {
      if (found.has(ticket.partnerTicketId)) continue;
      const legacy = await this.deps.admissions.get(ticket.id);
      if (!legacy) continue;
      found.add(ticket.partnerTicketId);
      admitted.push({ ...legacy, partnerTicketId: ticket.partnerTicketId });
    }
    return admitted;
  }

  // ---------------------------------------------------------------- gates

  createGate(input: { name: string; eventId: string }): Promise<{ gate: Gate; token: string }> {
    return this.gates.create(input);
  }

  listGates(eventId?: string): Promise<Gate[]> {
    return this.gates.list(eventId);
  }

  revokeGate(id: string): Promise<Gate> {
    return this.gates.revoke(id);
  }

  private now(): Date {
    return this.deps.clock.now();
  }
}
