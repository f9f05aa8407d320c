import { createHash } from 'node:crypto';
import { AppError, isAppErrorLike, type ErrorKind } from '../errors/index.js';
import { incomingCall } from '../grpc/call-context.js';
import type { StoreIndex, Versioned, VersionedStore } from '../store/types.js';
import type { IdempotencySecrets, SealedBytes } from './sealing.js';

/** ErrorInfo reason (in `details.reason`) of a key reused with a different request. */
export const IDEMPOTENCY_KEY_REUSED = 'idempotency-key-reused';
/** ErrorInfo reason of a key whose first request is still running. */
export const IDEMPOTENCY_KEY_IN_PROGRESS = 'idempotency-key-in-progress';

/**
 * Error kinds that are the outcome of the request itself and are answered again to a retry. Other
 * failures (unavailable, deadline_exceeded, aborted, internal, anything unexpected) say nothing
 * about the request: they are not recorded, so a retry with the same key runs the call again.
 */
export const RECORDED_ERROR_KINDS: readonly ErrorKind[] = [
  'invalid_argument',
  'not_found',
  'already_exists',
  'failed_precondition',
  'unauthenticated',
  'permission_denied',
  'resource_exhausted',
];

/** One key of one caller. `id` is the hex SHA-256 of scope and key. */
export interface IdempotencyRecord extends Versioned {
  scope: string;
  /**
   * Digest of the request bytes (the operation name included by the caller): `hmac:<kid>:<hex>`
   * with `secrets`, else the bare hex SHA-256.
   */
  requestHash: string;
  state: 'pending' | 'done';
  /** A pending record whose lease ended may be taken over (its process died). */
  lockedUntil: Date;
  /** The first outcome: the encoded response (sealed with `secrets`), or the error. */
  outcome?:
    | { ok: true; response?: Uint8Array; sealed?: SealedBytes }
    | { ok: false; kind: ErrorKind; message: string; details?: Record<string, unknown> };
  createdAt: Date;
  /** After this the key may be used afresh (records are purged by `purgeExpired`). */
  expiresAt: Date;
}

/** Indexes the record collection needs (`purgeExpired`). */
export const idempotencyIndexes: readonly StoreIndex<IdempotencyRecord>[] = [
  { fields: { expiresAt: 1 } },
];

export interface IdempotencyOptions {
  /** How long an outcome is kept and answered again. Default 24 h. */
  ttlMs?: number;
  /** How long a running first request owns its key before another may take over. Default 60 s. */
  leaseMs?: number;
  /** How long a concurrent duplicate waits for the first request's outcome. Default 10 s. */
  waitMs?: number;
  /** First poll interval of that wait, doubling up to 1 s. Default 50 ms. */
  pollMs?: number;
  now?: () => Date;
  /**
   * Keys that seal the recorded responses and digest the requests with a keyed MAC (see
   * `idempotencySecrets`). Required where a response carries a secret (order tokens). A record
   * under a key no longer in the ring, or written without secrets, is treated as expired.
   */
  secrets?: IdempotencySecrets;
}

export interface IdempotentCall<T> {
  /** Who owns the key (the calling app): keys of different callers never meet. */
  scope: string;
  /** The caller's key; empty = no idempotency, `execute` just runs. */
  key: string;
  /**
   * The request as bytes, with the operation name, without the key itself, and without card
   * verification data (a CVV is never digested: see README.md, "What is kept").
   */
  request: Uint8Array;
  encode(response: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

export interface RunOptions {
  /**
   * Called when the key has no record yet, before one is written: a throw refuses the call with
   * that error and writes nothing (a cheap refusal under load), while a retry of a request that
   * already ran still gets its first outcome. With it, the key is read before it is taken.
   */
  refuseNew?: () => void;
  /**
   * Called each time the call starts waiting for a duplicate that is still running (before each
   * pause): what the caller holds for its own run, such as a place under a concurrency bound, can
   * be given back while it only waits.
   */
  onWait?: () => void;
}

/**
 * A key claimed by the call's own first write (`runClaimed`): `id` is a hex SHA-256 of scope, key
 * and `attempt` (the first run's is the id `run` gives its record), `requestHash` the request's
 * digest as `run` records it.
 */
export interface KeyClaim {
  id: string;
  requestHash: string;
  /** 1, or n for the n-th run of the key after runs that ended in a failure to run again. */
  attempt: number;
}

/** Runs of one key `runClaimed` makes at most (the last one's answer then stands). */
const MAX_CLAIMED_RUNS = 8;

/** What the call's write of a claim left, as `runClaimed` asks for it. */
export interface ClaimedOutcome<T> {
  /** The digest the write kept (`KeyClaim.requestHash` of the request that made it). */
  requestHash: string;
  /** The answer to a retry: the state as it is now, or a throw (the failure it ended in). */
  answer(): T;
  /**
   * The run ended in a failure that says nothing about the request (what `run` would not record:
   * unavailable, say): a retry runs the call again, under the key's next claim.
   */
  runAgain?: boolean;
}

export interface ClaimedRunOptions<T> {
  /** Reads what the call's write of this claim left; `undefined` when there is nothing. */
  find(claim: KeyClaim): Promise<ClaimedOutcome<T> | undefined>;
  /** As `RunOptions.refuseNew`: with it, `find` is asked before the call runs. */
  refuseNew?: () => void;
  /**
   * Ask `find` before the call runs (a retry is then answered without running it up to its
   * write): for a call that spends something one-off before it writes.
   */
  readFirst?: boolean;
}

export interface Idempotency {
  /**
   * Runs `execute` once per (scope, key): a retry with the same request answers the first outcome
   * (the response, or a recorded error); the same key with a different request is
   * `failed_precondition` with reason `idempotency-key-reused`. A duplicate arriving while the
   * first runs waits for its outcome (then `aborted`, reason `idempotency-key-in-progress`).
   */
  run<T>(call: IdempotentCall<T>, execute: () => Promise<T>, options?: RunOptions): Promise<T>;
  /**
   * A call that claims the key with its own first write, so no record of this store is written
   * (README.md, "Claimed by the call's own write"): `execute` is given the claim, writes its
   * digest under an id derived from `claim.id` and fails `already_exists` when that id is taken;
   * the retry is then answered by `find`, from the state that write started, after the digests
   * are compared (another request: `idempotency-key-reused`). No key: `execute(undefined)`.
   */
  runClaimed<T>(
    call: Pick<IdempotentCall<T>, 'scope' | 'key' | 'request'>,
    execute: (claim: KeyClaim | undefined) => Promise<T>,
    options: ClaimedRunOptions<T>,
  ): Promise<T>;
  /** Deletes records expired before now; resolves how many. */
  purgeExpired(limit?: number): Promise<number>;
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
/** Time kept to send the "still running" answer before the caller's deadline. */
const ANSWER_MARGIN_MS = 250;

const kindOf = (error: unknown) => (error as { kind?: unknown } | null)?.kind;
const raced = (error: unknown) => kindOf(error) === 'aborted' || kindOf(error) === 'already_exists';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const MAX_KEY_LENGTH = 255;

export function createIdempotency(
  store: VersionedStore<IdempotencyRecord>,
  options: IdempotencyOptions = {},
): Idempotency {
  const keys = new IdempotencyKeys(store, options);
  return {
    run: (call, execute, runOptions) => keys.run(call, execute, runOptions),
    runClaimed: (call, execute, claimed) => keys.runClaimed(call, execute, claimed),
    purgeExpired: (limit) => keys.purgeExpired(limit),
  };
}

/** A key taken for this call's run, or the first outcome of a run that already ended. */
type Taken<T> = { record: IdempotencyRecord } | { replayed: T };

/** The records of one store: taking a key, waiting for a duplicate, recording outcomes. */
class IdempotencyKeys {
  readonly #store: VersionedStore<IdempotencyRecord>;
  readonly #ttlMs: number;
  readonly #leaseMs: number;
  readonly #waitMs: number;
  readonly #pollMs: number;
  readonly #now: () => Date;
  readonly #secrets: IdempotencySecrets | undefined;

  constructor(store: VersionedStore<IdempotencyRecord>, options: IdempotencyOptions) {
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? 24 * 60 * 60_000;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#waitMs = options.waitMs ?? 10_000;
    this.#pollMs = options.pollMs ?? 50;
    this.#now = options.now ?? (() => new Date());
    this.#secrets = options.secrets;
  }

  async run<T>(
    call: IdempotentCall<T>,
    execute: () => Promise<T>,
    runOptions: RunOptions = {},
  ): Promise<T> {
    if (!call.key) return execute();
    checkKey(call.key);
    const id = sha256(`${call.scope}\u0000${call.key}`);
    const taken = await this.#take(id, call, runOptions);
    if ('replayed' in taken) return taken.replayed;
    const mine = taken.record;
    let response: T;
    try {
      response = await execute();
    } catch (error) {
      await this.#recordFailure(mine, error);
      throw error;
    }
    try {
      const { version: _version, ...rest } = mine;
      await this.#store.update(id, mine.version, {
        ...rest,
        state: 'done',
        outcome: this.#recordResponse(call.encode(response)),
      });
    } catch (_writeError) {
      // Not recorded: a retry after the lease runs the call again (the call must be safe to repeat).
    }
    return response;
  }

  async runClaimed<T>(
    call: Pick<IdempotentCall<T>, 'scope' | 'key' | 'request'>,
    execute: (claim: KeyClaim | undefined) => Promise<T>,
    options: ClaimedRunOptions<T>,
  ): Promise<T> {
    if (!call.key) return execute(undefined);
    checkKey(call.key);
    const base = sha256(`${call.scope}\u0000${call.key}`);
    const requestHash = this.#digest(call.request);
    const claimOf = (attempt: number): KeyClaim => ({
      id: attempt === 1 ? base : sha256(`${base}\u0000${attempt}`),
      requestHash,
      attempt,
    });
    // The runs of the key so far, first to last: the answer of the last one that describes the
    // request, or the attempt a new run takes (the first free one).
    const walk = async (from: number): Promise<{ outcome?: ClaimedOutcome<T>; next: number }> => {
      for (let attempt = from; ; attempt += 1) {
        const outcome = await options.find(claimOf(attempt));
        if (!outcome) return { next: attempt };
        if (!this.#matches(outcome.requestHash, call.request)) throw keyReused();
        if (!outcome.runAgain || attempt >= MAX_CLAIMED_RUNS) return { outcome, next: attempt };
      }
    };
    let attempt = 1;
    if (options.refuseNew || options.readFirst) {
      const seen = await walk(1);
      if (seen.outcome) return seen.outcome.answer();
      attempt = seen.next;
      if (attempt === 1) options.refuseNew?.();
    }
    for (;;) {
      try {
        return await execute(claimOf(attempt));
      } catch (error) {
        // The claim's id was taken: by a run of this key (a retry), or by nothing we know of.
        if (kindOf(error) !== 'already_exists') throw error;
        const seen = await walk(attempt);
        if (seen.outcome) return seen.outcome.answer();
        if (seen.next === attempt) throw error;
        attempt = seen.next;
      }
    }
  }

  async purgeExpired(limit = 500): Promise<number> {
    const expired = await this.#store.find({ expiresAt: { $lte: this.#now() } }, { limit });
    let purged = 0;
    for (const record of expired) {
      try {
        if (await this.#store.delete(record.id, record.version)) purged += 1;
      } catch (error) {
        if (!raced(error)) throw error;
      }
    }
    return purged;
  }

  /**
   * Takes the key, or answers the first outcome, or waits while a duplicate runs: a reused key and
   * a duplicate still running at the deadline are refused.
   */
  async #take<T>(id: string, call: IdempotentCall<T>, runOptions: RunOptions): Promise<Taken<T>> {
    const requestHash = this.#digest(call.request);
    // Waiting for a duplicate ends in time to answer "still running" before the caller gives up.
    const deadline = Math.min(
      Date.now() + this.#waitMs,
      (incomingCall()?.deadline ?? Number.POSITIVE_INFINITY) - ANSWER_MARGIN_MS,
    );
    // A new key (the usual case) is taken by its insert alone; a key seen before fails the insert
    // and is read. With `refuseNew` the key is read first, so a new one can be refused unwritten.
    const { refuseNew } = runOptions;
    let mine = refuseNew ? undefined : await this.#claim(id, call.scope, requestHash, undefined);
    for (let polls = 0; !mine;) {
      const existing = await this.#store.get(id);
      if (refuseNew && !this.#isLive(existing, this.#now().getTime())) refuseNew();
      const at = this.#now().getTime();
      const live = this.#isLive(existing, at);
      if (live && !this.#sameRequest(existing, call.request)) throw keyReused();
      if (live && existing.state === 'done') return { replayed: this.#replay(existing, call) };
      if (!live || existing.lockedUntil.getTime() <= at) {
        mine = await this.#claim(id, call.scope, requestHash, existing);
        if (mine) break;
        continue;
      }
      if (Date.now() >= deadline)
        throw new AppError('aborted', 'a request with this Idempotency-Key is still running', {
          details: { reason: IDEMPOTENCY_KEY_IN_PROGRESS },
        });
      runOptions.onWait?.();
      // Backing off: many duplicates of slow requests must not turn into a read storm.
      await sleep(Math.max(0, Math.min(1_000, this.#pollMs * 2 ** polls++, deadline - Date.now())));
    }
    return { record: mine };
  }

  /** Takes the key (new, expired, or a pending one whose lease ended); the record, or undefined. */
  async #claim(
    id: string,
    scope: string,
    requestHash: string,
    existing: IdempotencyRecord | undefined,
  ): Promise<IdempotencyRecord | undefined> {
    const at = this.#now();
    const fresh = {
      id,
      scope,
      requestHash,
      state: 'pending' as const,
      lockedUntil: new Date(at.getTime() + this.#leaseMs),
      createdAt: at,
      expiresAt: new Date(at.getTime() + this.#ttlMs),
    };
    try {
      if (!existing) return await this.#store.insert(fresh);
      const expired = !this.#isLive(existing, at.getTime());
      return await this.#store.update(id, existing.version, (current) =>
        expired ? { ...fresh } : { ...current, lockedUntil: fresh.lockedUntil },
      );
    } catch (error) {
      if (raced(error)) return undefined;
      throw error;
    }
  }

  /**
   * After a failed run: an outcome of the request itself is recorded; any other failure gives the
   * key back by ending its lease, so a retry of the same request runs again at once.
   */
  async #recordFailure(mine: IdempotencyRecord, error: unknown): Promise<void> {
    const recorded = isAppErrorLike(error) && RECORDED_ERROR_KINDS.includes(error.kind);
    const { version: _version, ...taken } = mine;
    try {
      if (recorded)
        await this.#store.update(mine.id, mine.version, {
          ...taken,
          state: 'done',
          outcome: {
            ok: false,
            kind: error.kind,
            message: error.message,
            ...(error.details ? { details: error.details } : {}),
          },
        });
      // An update, not a delete: the dev/CI Mongo-wire server scans the whole collection for a
      // delete.
      else await this.#store.update(mine.id, mine.version, { ...taken, lockedUntil: new Date(0) });
    } catch (_writeError) {
      // The lease ends by itself; a retry then runs the call again.
    }
  }

  #replay<T>(record: IdempotencyRecord, call: IdempotentCall<T>): T {
    const outcome = record.outcome!;
    if (outcome.ok)
      return call.decode(
        outcome.sealed ? this.#secrets!.open(outcome.sealed) : new Uint8Array(outcome.response!),
      );
    throw new AppError(outcome.kind, outcome.message, {
      ...(outcome.details ? { details: outcome.details } : {}),
    });
  }

  #digest(request: Uint8Array): string {
    return this.#secrets ? this.#secrets.digest(request) : sha256(request);
  }

  #sameRequest(record: IdempotencyRecord, request: Uint8Array): boolean {
    return this.#matches(record.requestHash, request);
  }

  /** Whether a kept digest is that of this request (under any key of the ring). */
  #matches(requestHash: string, request: Uint8Array): boolean {
    return this.#secrets
      ? this.#secrets.matches(requestHash, request)
      : requestHash === sha256(request);
  }

  /** Live: not expired, and readable with the keys this store has. */
  #isLive(record: IdempotencyRecord | undefined, at: number): record is IdempotencyRecord {
    return (
      !!record &&
      record.expiresAt.getTime() > at &&
      (!this.#secrets || this.#secrets.knows(record.requestHash))
    );
  }

  #recordResponse(bytes: Uint8Array): IdempotencyRecord['outcome'] {
    return this.#secrets
      ? { ok: true as const, sealed: this.#secrets.seal(bytes) }
      : { ok: true as const, response: bytes };
  }
}

const keyReused = () =>
  new AppError('failed_precondition', 'this Idempotency-Key was used with a different request', {
    details: { reason: IDEMPOTENCY_KEY_REUSED },
  });

/** A key of at most 255 printable ASCII characters, else `invalid_argument`. */
function checkKey(key: string): void {
  if (key.length > MAX_KEY_LENGTH || /[^\x20-\x7e]/.test(key))
    throw new AppError(
      'invalid_argument',
      `Idempotency-Key must be at most ${MAX_KEY_LENGTH} printable ASCII characters`,
      { details: { field: 'idempotency_key' } },
    );
}
