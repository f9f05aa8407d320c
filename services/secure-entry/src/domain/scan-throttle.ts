/**
 * How many scans one gate may have evaluated per minute, and how many of them may be FORGED.
 * A scanner at a busy entrance reads a code every second or two; a script replaying made-up
 * payloads through a stolen or misused gate token reads hundreds, and every FORGED scan is
 * written to the scan log and published on `ticket-scanned`. Past either bound the gate's scans
 * are refused (`resource_exhausted`, 429 on the gate API) until the minute ends.
 */
export interface ScanLimits {
  scansPerMinute: number;
  forgedPerMinute: number;
}

/** About one scan a second sustained; a gate that reads 30 forged codes in a minute is misused. */
export const DEFAULT_SCAN_LIMITS: Readonly<ScanLimits> = Object.freeze({
  scansPerMinute: 120,
  forgedPerMinute: 30,
});

interface GateWindow {
  start: number;
  scans: number;
  forged: number;
}

/** Gates counted at once; past it the oldest windows are dropped (a bounded map). */
const MAX_GATES = 10_000;
const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows per gate, in this process (each replica counts its own share: the
 * bound of a deployment is the replicas times the limit, still far below a flood). A limit of 0
 * turns that bound off.
 */
export class ScanThrottle {
  private readonly windows = new Map<string, GateWindow>();

  constructor(private readonly limits: ScanLimits) {}

  /** Counts one scan of the gate; the ms until its window ends when the gate is over a bound. */
  admit(gateId: string, nowMs: number): number | undefined {
    const window = this.windowOf(gateId, nowMs);
    const { scansPerMinute, forgedPerMinute } = this.limits;
    const over =
      (scansPerMinute > 0 && window.scans >= scansPerMinute) ||
      (forgedPerMinute > 0 && window.forged >= forgedPerMinute);
    if (over) return window.start + WINDOW_MS - nowMs;
    window.scans += 1;
    return undefined;
  }

  /** Counts a FORGED result against the gate's window. */
  forged(gateId: string, nowMs: number): void {
    this.windowOf(gateId, nowMs).forged += 1;
  }

  private windowOf(gateId: string, nowMs: number): GateWindow {
    const start = nowMs - (nowMs % WINDOW_MS);
    let window = this.windows.get(gateId);
    if (window === undefined || window.start !== start) {
      if (window === undefined && this.windows.size >= MAX_GATES) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) this.windows.delete(oldest);
      }
      window = { start, scans: 0, forged: 0 };
      this.windows.delete(gateId);
      this.windows.set(gateId, window);
    }
    return window;
  }
}
