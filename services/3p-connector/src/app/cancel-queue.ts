import { cancelBackoffMs, queuedCancelId, type QueuedCancel } from '../domain/cancel-queue.js';
import { cancelAlreadyDone } from '../domain/partner-errors.js';
import type { Partner } from '../domain/partner.js';
import type { OrderActionAnswer } from '@marquee/partner-api';
import {
  asPartnerFailure,
  type CallFailureRepository,
  type CallOptions,
  type Clock,
  type Log,
  type PartnerApiFactory,
  type PartnerRepository,
  type QueueRepository,
} from './ports.js';

export interface CancelCommand {
  partnerId: string;
  eventId: string;
  inventoryOrderId: string;
  orderId: string;
  language: string;
  channelType: string;
}

export type CancelOutcome =
  { status: 'cancelled'; order: OrderActionAnswer['order'] | undefined } | { status: 'queued' };

/** How long a worker owns a claimed entry before another may take it over (a crashed worker). */
const CLAIM_MS = 60_000;

/**
 * Cancels at partners, durably: sent at once, and when the partner cannot take it now (offline,
 * 5xx, timeout, open circuit) kept in `queued_calls` and retried with exponential backoff until the
 * partner accepts it (200, or 315 "already cancelled"). One entry per partner + inventory order.
 */
export class CancelQueue {
  constructor(
    private readonly deps: {
      partners: PartnerRepository;
      queue: QueueRepository;
      failures: CallFailureRepository;
      api: PartnerApiFactory;
      clock: Clock;
      log: Log;
      maxBackoffMs: number;
    },
  ) {}

  private async partner(id: string): Promise<Partner> {
    const partner = await this.deps.partners.get(id);
    if (!partner)
      throw Object.assign(new Error(`partner ${id} not found`), { kind: 'not_found' as const });
    return partner;
  }

  private send(partner: Partner, command: CancelCommand, options?: CallOptions) {
    return this.deps.api.forPartner(partner).orderAction(
      command.inventoryOrderId,
      {
        request: {
          action: 'CANCEL',
          channel_info: { channel_type: command.channelType || 'INTERNET' },
          ...(command.language ? { language: command.language } : {}),
        },
      },
      options,
    );
  }

  /** Cancels now, or queues the cancel when the partner cannot take it now. */
  async cancel(command: CancelCommand, options?: CallOptions): Promise<CancelOutcome> {
    const { queue, failures, clock, log } = this.deps;
    const partner = await this.partner(command.partnerId);
    const id = queuedCancelId(partner.id, command.inventoryOrderId);
    try {
      const answer = await this.send(partner, command, options);
      await queue.remove(id);
      return { status: 'cancelled', order: answer.order };
    } catch (error) {
      const failure = asPartnerFailure(error);
      if (failure && cancelAlreadyDone(failure.partnerErrorId)) {
        await queue.remove(id);
        return { status: 'cancelled', order: undefined };
      }
      if (!failure?.transient) throw error;
      const now = clock.now();
      const added = await queue.add({
        id,
        version: 1,
        partnerId: partner.id,
        eventId: command.eventId,
        inventoryOrderId: command.inventoryOrderId,
        orderId: command.orderId,
        language: command.language,
        channelType: command.channelType,
        attempts: 1,
        nextAttemptAt: new Date(now.getTime() + cancelBackoffMs(1, this.deps.maxBackoffMs)),
        lastError: failure.message,
        queuedAt: now,
        claimedUntil: null,
      });
      log.warn(
        {
          partner_id: partner.id,
          inventory_order_id: command.inventoryOrderId,
          already_queued: !added,
        },
        'cancel queued for retry',
      );
      await failures.record({
        partnerId: partner.id,
        operation: 'CANCEL_ORDER',
        cartId: '',
        orderId: command.orderId,
        eventId: command.eventId,
        inventoryToken: '',
        inventoryOrderId: command.inventoryOrderId,
        httpStatus: failure.httpStatus,
        partnerErrorId: failure.partnerErrorId ?? 0,
        message: failure.message,
        attempt: 1,
        willRetry: true,
        outcomeUnknown: failure.outcomeUnknown,
        correlationId: failure.correlationId,
        failedAt: now,
      });
      return { status: 'queued' };
    }
  }

  /**
   * One pass of the worker: every due entry is claimed (compare-and-set on its version, so two
   * replicas never send the same attempt), sent, and deleted when accepted or rescheduled.
   */
  async processDue(limit = 50): Promise<{ delivered: number; rescheduled: number }> {
    const { queue, clock, log, maxBackoffMs } = this.deps;
    const now = clock.now();
    let delivered = 0;
    let rescheduled = 0;
    for (const entry of await queue.due(now, limit)) {
      if (entry.claimedUntil && entry.claimedUntil.getTime() > now.getTime()) continue;
      const claimed = await queue.update(
        { ...entry, claimedUntil: new Date(now.getTime() + CLAIM_MS) },
        entry.version,
      );
      if (!claimed) continue;
      const attempt = claimed.attempts + 1;
      let lastError = '';
      try {
        const partner = await this.partner(claimed.partnerId);
        await this.send(partner, claimed);
      } catch (error) {
        const failure = asPartnerFailure(error);
        if (!(failure && cancelAlreadyDone(failure.partnerErrorId)))
          lastError = error instanceof Error ? error.message : String(error);
      }
      if (!lastError) {
        await queue.remove(claimed.id, claimed.version);
        delivered += 1;
        log.info(
          { partner_id: claimed.partnerId, inventory_order_id: claimed.inventoryOrderId, attempt },
          'queued cancel delivered',
        );
        continue;
      }
      const at = clock.now();
      await queue.update(
        {
          ...claimed,
          attempts: attempt,
          lastError,
          nextAttemptAt: new Date(at.getTime() + cancelBackoffMs(attempt, maxBackoffMs)),
          claimedUntil: null,
        },
        claimed.version,
      );
      rescheduled += 1;
    }
    return { delivered, rescheduled };
  }

  list(partnerId?: string): Promise<QueuedCancel[]> {
    return this.deps.queue.list(partnerId);
  }
}
