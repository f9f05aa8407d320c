import { errorKindOf } from '@marquee/platform/kernel';
import { CartError, ErrorCode } from '../../domain/errors.js';
import { checkAdmission, type AdmissionUse } from '../domain/token.js';
import type { WaitingRoomDeps } from './ports.js';

const spent = () =>
  new CartError(
    'permission_denied',
    ErrorCode.ADMISSION_REQUIRED,
    "the event's on-sale has a queue: this admission was spent on a reserve already; each admission reserves once",
  );

/**
 * The reserve path's gate while an event's queue is on: a reserve must present an admission
 * token signed here, for the same event, app and fan or device, not expired, and not spent. The
 * admission is spent by moving its queue ticket from ADMITTED to USED in one compare-and-set, so
 * two reserves racing with one token get one reserve between them. Refusals are
 * permission_denied (20070), which the partner API answers 403.
 */
export class SpendAdmission {
  constructor(private readonly deps: Pick<WaitingRoomDeps, 'tickets' | 'signer'>) {}

  /** Spends the admission `token` for `use`; resolves the queue ticket id. */
  async handle(token: string | undefined, use: AdmissionUse): Promise<string> {
    const { signer, tickets } = this.deps;
    const claims = checkAdmission(token ? signer.verify(token) : undefined, use);
    const ticket = await tickets.get(claims.ticketId);
    if (!ticket || ticket.state !== 'ADMITTED') throw spent();
    const { version, ...current } = ticket;
    try {
      await tickets.update({ ...current, state: 'USED' }, version);
    } catch (error) {
      if (errorKindOf(error) === 'aborted') throw spent();
      throw error;
    }
    return ticket.id;
  }

  /**
   * Gives a spent admission back (USED to ADMITTED) after the reserve it was spent on failed, so
   * the fan may try again while it lasts. A ticket that moved on meanwhile is left as it is.
   */
  async giveBack(ticketId: string): Promise<void> {
    const ticket = await this.deps.tickets.get(ticketId);
    if (!ticket || ticket.state !== 'USED') return;
    const { version, ...current } = ticket;
    try {
      await this.deps.tickets.update({ ...current, state: 'ADMITTED' }, version);
    } catch (error) {
      if (errorKindOf(error) !== 'aborted') throw error;
    }
  }
}
