import { healthStateOf, nextHealthDelayMs, type HealthObservation } from '../domain/health.js';
import type { Partner } from '../domain/partner.js';
import {
  asPartnerFailure,
  type Clock,
  type Log,
  type PartnerApiFactory,
  type PartnerRepository,
} from './ports.js';
import type { ImportTrigger } from './registry.js';

/**
 * Polls a partner's `GET /healthcheck` and keeps its state: 0 healthy, 901 unavailable (the poll
 * interval doubles up to 10 min and scheduled imports pause), 902 imports `venues_to_sync` now, no
 * answer unreachable, refused credentials unauthorized. `partner-health-changed` only on a change.
 */
export class HealthMonitor {
  constructor(
    private readonly deps: {
      partners: PartnerRepository;
      api: PartnerApiFactory;
      imports: ImportTrigger;
      clock: Clock;
      log: Log;
    },
  ) {}

  async observe(partner: Partner): Promise<HealthObservation> {
    try {
      const answer = await this.deps.api.forPartner(partner).healthcheck();
      return {
        kind: 'answer',
        id: answer.id,
        message: answer.message,
        venuesToSync: answer.venues_to_sync ?? [],
      };
    } catch (error) {
      const failure = asPartnerFailure(error);
      const message = error instanceof Error ? error.message : String(error);
      if (
        failure &&
        (failure.httpStatus === 401 || failure.httpStatus === 403 || failure.httpStatus === 400)
      )
        return { kind: 'unauthorized', message };
      return { kind: 'unreachable', message };
    }
  }

  /** One poll; resolves the delay until the next one. */
  async poll(partner: Partner, currentDelayMs: number, baseDelayMs: number): Promise<number> {
    const { partners, imports, clock, log } = this.deps;
    const observation = await this.observe(partner);
    const state = healthStateOf(observation);
    const venuesToSync = observation.kind === 'answer' ? observation.venuesToSync : [];
    if (state !== partner.health) {
      log.info(
        { partner_id: partner.id, previous: partner.health, current: state },
        'partner health changed',
      );
      await partners.recordHealth(partner.id, {
        previous: partner.health,
        current: state,
        healthcheckId: observation.kind === 'answer' ? observation.id : 0,
        message: observation.message,
        venuesToSync: [...venuesToSync],
        checkedAt: clock.now(),
      });
    }
    if (state === 'SYNC_REQUIRED') {
      const registered = venuesToSync.filter((v) => partner.venues.includes(v));
      const ignored = venuesToSync.filter((v) => !partner.venues.includes(v));
      if (ignored.length > 0)
        log.warn(
          { partner_id: partner.id, venues: ignored },
          'partner asks to sync unregistered venues',
        );
      imports.importVenues(partner.id, registered);
    }
    return nextHealthDelayMs(state, currentDelayMs, baseDelayMs);
  }
}

/**
 * The timetable of every partner: healthchecks (at once for a partner seen the first time, then
 * every interval, backed off while unavailable) and scheduled imports of every registered venue
 * (skipped while the partner reports 901). `tick` is called by a timer; work runs in the background
 * and a partner's poll never overlaps itself.
 */
export class Scheduler {
  private readonly health = new Map<string, { at: number; delay: number; busy: boolean }>();
  private readonly imports = new Map<string, number>();

  constructor(
    private readonly deps: {
      partners: PartnerRepository;
      monitor: HealthMonitor;
      importer: ImportTrigger;
      healthIntervalMs: number;
      importIntervalMs: number;
      log: Log;
    },
  ) {}

  async tick(now: number): Promise<void> {
    const { partners, monitor, importer, healthIntervalMs, importIntervalMs, log } = this.deps;
    for (const partner of await partners.list()) {
      let health = this.health.get(partner.id);
      if (!health) {
        health = { at: now, delay: healthIntervalMs, busy: false };
        this.health.set(partner.id, health);
      }
      if (!health.busy && health.at <= now) {
        const slot = health;
        slot.busy = true;
        void monitor
          .poll(partner, slot.delay, healthIntervalMs)
          .then(
            (delay) => {
              slot.delay = delay;
            },
            (error: unknown) =>
              log.error({ err: error, partner_id: partner.id }, 'healthcheck failed'),
          )
          .finally(() => {
            slot.busy = false;
            slot.at = Date.now() + slot.delay;
          });
      }
      const importAt = this.imports.get(partner.id);
      if (importAt === undefined) {
        this.imports.set(partner.id, now + importIntervalMs);
      } else if (importAt <= now) {
        this.imports.set(partner.id, now + importIntervalMs);
        if (partner.health === 'UNAVAILABLE') {
          log.info({ partner_id: partner.id }, 'scheduled import skipped: partner unavailable');
        } else {
          importer.importVenues(partner.id, partner.venues);
        }
      }
    }
  }
}
