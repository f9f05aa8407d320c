import type { Publication } from './publish-load.js';
import { sleep } from './publish-load.js';

/**
 * Watches accepted publications appear in discovery: every `intervalMs` it searches Discovery v2
 * through the edge for the segment words (publish-load.ts) that still have accepted publications
 * it has not seen, oldest first, and notes when each event id first showed. A few searches a
 * second, whatever the backlog: the watcher must not become the load. What it notes is a
 * measurement (how long after its acceptance an event became visible, how long discovery stood
 * still during a fault); the test checks exactly-once with `searchSegment` at the end.
 */
export class VisibilityWatch {
  /** Event id → when discovery first showed it (epoch ms). */
  readonly seenAt = new Map<string, number>();
  private running = false;
  private loop?: Promise<void>;

  constructor(
    private readonly options: {
      baseUrl: string;
      apiKey: string;
      publications: readonly Publication[];
      intervalMs?: number;
      /** Segments searched per round at most. */
      segmentsPerRound?: number;
    },
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Accepted publications discovery has not shown yet. */
  unseen(): Publication[] {
    return this.options.publications.filter(
      (publication) => publication.id !== undefined && !this.seenAt.has(publication.id),
    );
  }

  private async run(): Promise<void> {
    while (this.running) {
      const segments = [...new Set(this.unseen().map((publication) => publication.segment))];
      for (const segment of segments.slice(0, this.options.segmentsPerRound ?? 3)) {
        try {
          const now = Date.now();
          for (const { id } of await searchSegment(
            this.options.baseUrl,
            this.options.apiKey,
            segment,
          )) {
            if (!this.seenAt.has(id)) this.seenAt.set(id, now);
          }
        } catch {
          // Discovery down (a fault): searched again next round.
        }
      }
      await sleep(this.options.intervalMs ?? 500);
    }
  }
}

/** Every event Discovery v2 finds by one segment word (whole-word keyword), page by page. */
export async function searchSegment(
  baseUrl: string,
  apiKey: string,
  segment: string,
): Promise<{ id: string; name: string }[]> {
  const found: { id: string; name: string }[] = [];
  // Discovery v2 pages: size at most 500, and size * page below 1,000.
  const size = 200;
  for (let page = 0, total = Infinity; page * size < total && page * size < 1_000; page += 1) {
    const response = await fetch(
      `${baseUrl}/discovery/v2/events.json?keyword=${segment}&size=${size}&page=${page}&apikey=${apiKey}`,
      { signal: AbortSignal.timeout(10_000) },
    );
    if (response.status !== 200) {
      throw new Error(`discovery search ${segment}: ${response.status} ${await response.text()}`);
    }
    const body = (await response.json()) as {
      _embedded?: { events: { id: string; name: string }[] };
      page: { totalElements: number };
    };
    total = body.page.totalElements;
    found.push(...(body._embedded?.events ?? []).map(({ id, name }) => ({ id, name })));
  }
  return found;
}
