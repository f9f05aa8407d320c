import { retryingConflicts } from '@marquee/platform/kernel';
import { EntryError } from '../domain/errors.js';
import type { Gate } from '../domain/model.js';
import type { Clock, EntryCrypto, GateRepository, Randomness } from './ports.js';

const GATE_TOKEN = /^mqg_([a-z0-9]{4,40})\.([A-Za-z0-9_-]{20,100})$/;
const GATE_CACHE_LIMIT = 10_000;

/**
 * Gate administration and gate authentication. Authenticated gates are cached for `gateCacheMs`
 * so a busy gate does not read its record on every scan; revoking drops the cached entry.
 */
export class Gates {
  private readonly cache = new Map<string, { gate: Gate; until: number }>();

  constructor(
    private readonly deps: {
      gates: GateRepository;
      crypto: EntryCrypto;
      random: Randomness;
      clock: Clock;
      gateCacheMs: number;
    },
  ) {}

  /** Authenticates a gate token (`mqg_<gate id>.<secret>`); kind `unauthenticated` otherwise. */
  async authenticate(token: string): Promise<Gate> {
    const unauthenticated = () =>
      new EntryError('unauthenticated', 'A valid gate token is required');
    const match = GATE_TOKEN.exec(token);
    if (!match) throw unauthenticated();
    const [, gateId, secret] = match as unknown as [string, string, string];
    const hash = this.deps.crypto.sha256Hex(secret);
    const cached = this.cache.get(gateId);
    const nowMs = Date.now();
    if (cached && cached.until > nowMs && this.deps.crypto.equal(cached.gate.secretHash, hash)) {
      return cached.gate;
    }
    const gate = await this.deps.gates.get(gateId);
    if (!gate || gate.revokedAt || !this.deps.crypto.equal(gate.secretHash, hash)) {
      this.cache.delete(gateId);
      throw unauthenticated();
    }
    if (this.cache.size >= GATE_CACHE_LIMIT) this.cache.clear();
    this.cache.set(gateId, { gate, until: nowMs + this.deps.gateCacheMs });
    return gate;
  }

  /** A new gate of an event; its token is answered once and only its hash is kept. */
  async create(input: { name: string; eventId: string }): Promise<{ gate: Gate; token: string }> {
    const name = input.name.trim();
    const eventId = input.eventId.trim();
    if (!name || name.length > 200)
      throw new EntryError('invalid_argument', 'name must be 1-200 characters');
    if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(eventId)) {
      throw new EntryError('invalid_argument', 'eventId must be an event id');
    }
    const id = this.deps.random.gateId();
    const secret = this.deps.random.gateSecret();
    const gate = await this.deps.gates.insert({
      id,
      name,
      eventId,
      secretHash: this.deps.crypto.sha256Hex(secret),
      createdAt: this.deps.clock.now(),
    });
    return { gate, token: `mqg_${id}.${secret}` };
  }

  /** The gates, of one event when given. */
  list(eventId?: string): Promise<Gate[]> {
    return this.deps.gates.list(eventId || undefined);
  }

  /** Revokes a gate (idempotent); its token stops working at once on this instance. */
  async revoke(id: string): Promise<Gate> {
    const gate = await retryingConflicts(async () => {
      const current = await this.deps.gates.get(id);
      if (!current) throw new EntryError('not_found', `No gate ${id}`);
      if (current.revokedAt) return current;
      return this.deps.gates.update({ ...current, revokedAt: this.deps.clock.now() });
    });
    this.cache.delete(id);
    return gate;
  }
}
