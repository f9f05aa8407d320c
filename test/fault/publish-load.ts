import { randomUUID } from 'node:crypto';

/**
 * A steady publishing load through the edge, with the retry behaviour the publishing API asks of a
 * client: every publication carries an `Idempotency-Key` of its own, and an answer that says
 * nothing about the outcome (503, 504, 409 `IDEMPOTENCY_KEY_IN_PROGRESS`, 429, a dropped connection
 * or the client's own timeout) is asked again, with the same key and the same body, after
 * `Retry-After` or a capped exponential backoff. Any other answer is final.
 */

/** What one attempt got: an HTTP status, the client's own timeout, or a failed connection. */
export type AttemptOutcome = number | 'timeout' | 'network';

export interface Attempt {
  /** When it was sent (epoch ms). */
  at: number;
  outcome: AttemptOutcome;
  /** The error code of a 409 or 5xx body, when there was one. */
  code?: string;
}

export interface Publication {
  seq: number;
  apiKey: string;
  idempotencyKey: string;
  /** A word only this publication's name has. */
  token: string;
  /** The word every publication of its few seconds' segment has in its name (discovery keyword). */
  segment: string;
  /** When it was due (epoch ms): the clock of the open-loop schedule. */
  dueAt: number;
  attempts: Attempt[];
  /** The final answer: 200 (accepted), another status, or `abandoned` (still failing at the end). */
  final?: number | 'abandoned';
  acceptedAt?: number;
  /** The event id the 200 answered. */
  id?: string;
}

export interface PublishLoadOptions {
  baseUrl: string;
  apiKeys: readonly string[];
  /** Publications started per second, over all apps. */
  ratePerSecond: number;
  /** Prefix of every segment word and token (letters and digits). */
  runId: string;
  /** The client's own timeout of one attempt. */
  clientTimeoutMs: number;
  /** A publication still not answered for good this long after it was due is given up. */
  giveUpMs: number;
  /** Seconds per segment word (default 5: a discovery search of one word answers ~50 events). */
  segmentSeconds?: number;
}

/** Answers that say nothing about whether the event exists: ask again with the same key. */
const retryable = (status: number, code: string | undefined) =>
  status === 503 ||
  status === 504 ||
  status === 429 ||
  (status === 409 && code === 'IDEMPOTENCY_KEY_IN_PROGRESS');

export const eventBody = (segment: string, token: string) => ({
  source: { id: 'fault-tier', name: 'Fault_Tier' },
  version: 1,
  active: true,
  url: `https://publisher.example/${token}`,
  names: { 'en-us': `Fault ${segment} ${token}` },
  classifications: [
    { primary: true, segment: { id: 'KZFzniwnSyZfZ7v7nJ', names: { 'en-us': 'Music' } } },
  ],
  dates: {
    start: { localDate: '2031-09-12', localTime: '20:00:00', dateTime: '2031-09-12T18:00:00Z' },
    timezone: 'Europe/Berlin',
  },
  place: {
    names: { 'en-us': 'Fault Hall' },
    city: { names: { 'en-us': 'Berlin' } },
    country: { countryCode: 'DE', names: { 'en-us': 'Germany' } },
    location: { latitude: 52.4848, longitude: 13.3907 },
  },
  priceRanges: { type: 'standard', currency: 'EUR', min: 30, max: 80 },
});

export class PublishLoad {
  readonly publications: Publication[] = [];
  private running = false;
  private aborted = false;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly startedAt = Date.now();

  constructor(private readonly options: PublishLoadOptions) {}

  /** The segment word of a moment (epoch ms). */
  segmentAt(at: number): string {
    const seconds = this.options.segmentSeconds ?? 5;
    return `${this.options.runId}s${Math.floor((at - this.startedAt) / (seconds * 1000))}`;
  }

  start(): void {
    this.running = true;
    this.loop = this.schedule();
  }

  /** Starts no new publication and waits until every started one is answered for good. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Starts no new publication and gives up the unanswered ones at their next retry. */
  abort(): void {
    this.aborted = true;
    this.running = false;
  }

  private async schedule(): Promise<void> {
    const interval = 1000 / this.options.ratePerSecond;
    for (let seq = 0, due = Date.now(); this.running; seq += 1, due += interval) {
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      if (!this.running) break;
      const publication: Publication = {
        seq,
        apiKey: this.options.apiKeys[seq % this.options.apiKeys.length]!,
        idempotencyKey: randomUUID(),
        token: `${this.options.runId}p${seq}`,
        segment: this.segmentAt(due),
        dueAt: due,
        attempts: [],
      };
      this.publications.push(publication);
      const run = this.publish(publication).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
  }

  private async publish(publication: Publication): Promise<void> {
    const body = JSON.stringify(eventBody(publication.segment, publication.token));
    const url = `${this.options.baseUrl}/publish/v2/events?apikey=${publication.apiKey}`;
    for (let attempt = 0; ; attempt += 1) {
      const at = Date.now();
      let outcome: AttemptOutcome;
      let code: string | undefined;
      let retryAfterMs = 0;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': publication.idempotencyKey,
          },
          body,
          signal: AbortSignal.timeout(this.options.clientTimeoutMs),
        });
        outcome = response.status;
        const text = await response.text();
        if (response.status === 200) {
          publication.id = (JSON.parse(text) as { id: string }).id;
        } else {
          code = errorCode(text);
          retryAfterMs = Number(response.headers.get('retry-after') ?? 0) * 1000;
        }
      } catch (error) {
        const name = (error as Error).name;
        outcome = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network';
      }
      publication.attempts.push({ at, outcome, ...(code ? { code } : {}) });
      if (outcome === 200) {
        publication.final = 200;
        publication.acceptedAt = Date.now();
        return;
      }
      if (typeof outcome === 'number' && !retryable(outcome, code)) {
        publication.final = outcome;
        return;
      }
      if (this.aborted || Date.now() - publication.dueAt > this.options.giveUpMs) {
        publication.final = 'abandoned';
        return;
      }
      const backoff = Math.min(250 * 2 ** attempt, 4_000) * (0.8 + Math.random() * 0.4);
      await sleep(Math.max(backoff, retryAfterMs));
    }
  }
}

/** `errors[0].code` of the publishing error body, or `code` of the platform's. */
function errorCode(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { errors?: { code?: string }[]; code?: string };
    return body.errors?.[0]?.code ?? body.code;
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
