import { retryingConflicts } from '@marquee/platform/kernel';
import type { Ticket } from '../domain/model.js';
import type { EntryCrypto, Log, TicketRepository } from './ports.js';

/** Tickets read per page of the walk. */
const PAGE = 200;

/** What one pass did, counted in ticket secrets (one per ticket). */
export interface ResealOutcome {
  /** Opened with another key of the ring (or sealed before key ids) and sealed with the first. */
  resealed: number;
  /** Sealed with the first key already: left as they are. */
  alreadyCurrent: number;
  /** Could not be opened with any key of the ring (logged by ticket id): left as they are. */
  failed: number;
}

export interface TicketSecretResealDeps {
  tickets: TicketRepository;
  crypto: EntryCrypto;
  log: Log;
}

/**
 * Re-seals every stored ticket secret that the first key of `SECURE_ENTRY_SECRET_KEY` did not
 * seal, so the keys after it can be dropped from the ring (docs/operations.md, "Rotating each
 * secret"). Walks the tickets by id; each re-seal is a compare-and-set on the ticket's version
 * that reads again after a lost race (`retryingConflicts`), so a concurrent write (a refresh, a
 * void, a device binding) is never overwritten, and a secret another replica re-sealed meanwhile
 * counts as current. Idempotent: a second pass finds everything current and writes nothing, so an
 * interrupted pass is resumed by running it again. A secret that no key of the ring opens is
 * counted and logged (ticket id only, never a value) and left as it is; a store failure ends the
 * pass with the error (the caller runs it again later).
 */
export class TicketSecretReseal {
  constructor(private readonly deps: TicketSecretResealDeps) {}

  async run(): Promise<ResealOutcome> {
    const outcome: ResealOutcome = { resealed: 0, alreadyCurrent: 0, failed: 0 };
    let after = '';
    for (;;) {
      const page = await this.deps.tickets.listAfter(after, PAGE);
      for (const ticket of page) {
        const result = await this.#reseal(ticket);
        if (result !== 'gone') outcome[result] += 1;
      }
      if (page.length < PAGE) return outcome;
      after = page.at(-1)!.id;
    }
  }

  async #reseal(listed: Ticket): Promise<keyof ResealOutcome | 'gone'> {
    const { tickets, crypto, log } = this.deps;
    if (listed.secret.kid === crypto.secretKeyId) return 'alreadyCurrent';
    return retryingConflicts(async (attempt) => {
      const ticket = attempt === 1 ? listed : await tickets.get(listed.id);
      if (!ticket) return 'gone';
      if (ticket.secret.kid === crypto.secretKeyId) return 'alreadyCurrent';
      let plain: string;
      try {
        plain = crypto.decryptSecret(ticket.secret);
      } catch (error) {
        log.warn(
          { ticketId: ticket.id, kid: ticket.secret.kid ?? null, reason: (error as Error).message },
          'ticket secret could not be opened for re-sealing',
        );
        return 'failed';
      }
      await tickets.update({ ...ticket, secret: crypto.encryptSecret(plain) });
      return 'resealed';
    });
  }
}
