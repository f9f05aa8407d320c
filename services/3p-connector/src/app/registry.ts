import type { QueuedCancel } from '../domain/cancel-queue.js';
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
    },
  ) {}

  /** Stores the partner (secret encrypted) and starts the import of its venues in the background. */
  async register(input: Registration): Promise<Partner> {
    const registration = validateRegistration(input);
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
      createdAt: clock(),
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

  private async venuesOf(partner: Partner): Promise<VenueImportState[]> {
    const stored = new Map(
      (await this.deps.venueImports.list(partner.id)).map((v) => [v.venueId, v]),
    );
    return partner.venues.map((v) => stored.get(v) ?? initialVenueState(partner.id, v));
  }
}
