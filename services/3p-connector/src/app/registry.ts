import type { QueuedCancel } from '../domain/cancel-queue.js';
import {
  addressRefusal,
  checkPartnerUrl,
  isIpLiteral,
  type EgressPolicy,
} from '../domain/egress.js';
import { ConnectorError } from '../domain/errors.js';
import {
  partnerSlug,
  validateRegistration,
  venueImportId,
  type Partner,
  type Registration,
  type VenueImportState,
} from '../domain/partner.js';
import type {
  Clock,
  Ids,
  PartnerRepository,
  QueueRepository,
  SecretBox,
  VenueImportRepository,
} from './ports.js';

/** How long registration waits for a partner host's DNS answer (calls check again anyway). */
const REGISTRATION_LOOKUP_MS = 2_000;

/** Starts imports in the background (the importer). */
export interface ImportTrigger {
  importVenues(partnerId: string, venues: readonly string[]): void;
}

export interface PartnerView {
  partner: Partner;
  venues: VenueImportState[];
}

export const EPOCH = new Date(0);

export const initialVenueState = (partnerId: string, venueId: string): VenueImportState => ({
  id: venueImportId(partnerId, venueId),
  version: 0,
  partnerId,
  venueId,
  watermark: EPOCH,
  lastImportAt: null,
  lastImportEvents: 0,
  lastError: '',
});

/** Partner registrations (PartnerAdminService): register, read, start imports, read the queue. */
export class PartnerRegistry {
  constructor(
    private readonly deps: {
      partners: PartnerRepository;
      venueImports: VenueImportRepository;
      queue: QueueRepository;
      secrets: SecretBox;
      ids: Ids;
      clock: Clock;
      imports: ImportTrigger;
      /** Which partner hosts are allowed (the same policy every partner call is checked against). */
      egress: EgressPolicy;
      /**
       * The addresses of a host name, to refuse at once a name that resolves inside the network
       * (a name that does not resolve yet is accepted: every call checks again).
       */
      resolveHost?: (host: string) => Promise<string[]>;
    },
  ) {}

  /** Stores the partner (secret encrypted) and starts the import of its venues in the background. */
  async register(input: Registration): Promise<Partner> {
    const registration = validateRegistration(input);
    await this.checkAddresses('base_url', registration.baseUrl);
    await this.checkAddresses('auth_url', registration.authUrl);
    const { partners, venueImports, secrets, ids, clock, imports } = this.deps;
    const partner = await partners.create({
      id: ids.partnerId(),
      version: 1,
      name: registration.name,
      slug: partnerSlug(registration.name),
      baseUrl: registration.baseUrl,
      authUrl: registration.authUrl,
      clientId: registration.clientId,
      clientSecret: secrets.encrypt(registration.clientSecret),
      venues: registration.venues,
      health: 'UNSPECIFIED',
      healthMessage: '',
      healthCheckedAt: null,
      createdAt: clock.now(),
    });
    for (const venue of partner.venues)
      await venueImports.save(initialVenueState(partner.id, venue));
    imports.importVenues(partner.id, partner.venues);
    return partner;
  }

  async get(id: string): Promise<PartnerView> {
    const partner = id ? await this.deps.partners.get(id) : undefined;
    if (!partner)
      throw new ConnectorError('not_found', `partner ${id} not found`, { partnerId: id });
    return { partner, venues: await this.venuesOf(partner) };
  }

  async list(): Promise<PartnerView[]> {
    const partners = await this.deps.partners.list();
    return Promise.all(
      partners.map(async (partner) => ({ partner, venues: await this.venuesOf(partner) })),
    );
  }

  /** Imports now: every registered venue, or the listed ones (each must be registered). */
  async startImport(partnerId: string, venues: readonly string[]): Promise<string[]> {
    const { partner } = await this.get(partnerId);
    const wanted = venues.length > 0 ? [...new Set(venues)] : partner.venues;
    const unknown = wanted.filter((v) => !partner.venues.includes(v));
    if (unknown.length > 0)
      throw new ConnectorError(
        'invalid_argument',
        `venues not registered for the partner: ${unknown.join(', ')}`,
        {
          field: 'venues',
        },
      );
    this.deps.imports.importVenues(partner.id, wanted);
    return wanted;
  }

  async queuedCalls(partnerId: string): Promise<QueuedCancel[]> {
    return this.deps.queue.list(partnerId || undefined);
  }

  /** The egress rules at registration: the URL itself, then what its host name resolves to. */
  private async checkAddresses(field: string, url: string): Promise<void> {
    const { egress, resolveHost } = this.deps;
    const host = checkPartnerUrl(egress, field, url);
    if (!resolveHost || egress.allowedNames.has(host) || isIpLiteral(host)) return;
    let addresses: string[] | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      // Bounded: a resolver that does not answer (no DNS from here) must not hold the operator's
      // request past its deadline; an unresolved name is accepted as one that does not resolve.
      addresses = await Promise.race([
        resolveHost(host),
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), REGISTRATION_LOOKUP_MS);
        }),
      ]);
    } catch {
      return;
    } finally {
      clearTimeout(timer);
    }
    if (!addresses) return;
    for (const address of addresses) {
      const refusal = addressRefusal(egress, host, address);
      if (refusal) {
        throw new ConnectorError(
          'invalid_argument',
          `${field} must name a public host: ${refusal} (operators allow such hosts with PARTNER_ALLOWED_HOSTS)`,
          { field },
        );
      }
    }
  }

  private async venuesOf(partner: Partner): Promise<VenueImportState[]> {
    const stored = new Map(
      (await this.deps.venueImports.list(partner.id)).map((v) => [v.venueId, v]),
    );
    return partner.venues.map((v) => stored.get(v) ?? initialVenueState(partner.id, v));
  }
}
