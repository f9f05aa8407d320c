/**
 * Puts the collections of a discovery bench run on its paced scenarios' timelines, second by second.
 *
 * Usage: DISCOVERY_BENCH_TRACE_GC=1 DISCOVERY_BENCH_TIMELINE=1 pnpm -s discovery > run.log
 *        (to see the load generator's collections too: node --trace-gc discovery/discovery-search.bench.ts)
 *        node discovery/gc-timeline.ts run.log
 *
 * Prints, per measured second, p50/p99 and every mark-compact and every scavenge of 8 ms or more
 * that began in that second, by process. `--trace-gc` stamps a line with the ms since its process
 * started; the report gives when each process started (`setup.processStartEpochMs`) and its pid.
 */
import { readFileSync } from 'node:fs';

interface Report {
  setup: {
    processStartEpochMs: Record<string, number>;
    processIds: Record<string, number>;
  };
  results: {
    scenario: string;
    latencyMs: { p99: number };
    timelineStartEpochMs?: number;
    timeline?: { second: number; p50: number; p99: number }[];
  }[];
}

const text = readFileSync(process.argv[2]!, 'utf8');
/** A `--trace-gc` line ("[pid:0x…] …"): the load generator's may fall inside its own report. */
const traceLine = /^\[\d+:0x[0-9a-f]+(?::\d+)?\]/;
const reportText = `\n${text}`
  .split('\n')
  .filter((line) => !traceLine.test(line))
  .join('\n');
/** The report: the last JSON object of the log, trace lines left out. */
function lastReport(): Report {
  for (
    let at = reportText.lastIndexOf('\n{');
    at >= 0;
    at = reportText.lastIndexOf('\n{', at - 1)
  ) {
    try {
      return JSON.parse(reportText.slice(at + 1)) as Report;
    } catch {
      // a brace inside the trace output: look further back
    }
  }
  throw new Error('no JSON report in the log');
}
const report = lastReport();
const names = new Map(
  Object.entries(report.setup.processIds).map(([name, pid]) => [String(pid), name]),
);
const events: { name: string; atEpochMs: number; kind: string; pauseMs: number }[] = [];
const line =
  /^\[(\d+):[^\]]*\]\s+(\d+) ms: (Scavenge|Mark-Compact)\b.*?MB, (?:pooled: \d+ MB, )?([\d.]+) \//gm;
for (const match of text.matchAll(line)) {
  const name = names.get(match[1]!);
  if (name === undefined) continue;
  events.push({
    name,
    atEpochMs: report.setup.processStartEpochMs[name]! + Number(match[2]),
    kind: match[3] === 'Mark-Compact' ? 'MC' : 'S',
    pauseMs: Number(match[4]),
  });
}
for (const result of report.results) {
  if (result.timeline === undefined || result.timelineStartEpochMs === undefined) continue;
  console.log(`== ${result.scenario}: p99 ${result.latencyMs.p99} ms`);
  for (const second of result.timeline) {
    const from = result.timelineStartEpochMs + second.second * 1000;
    const seen = events
      .filter((e) => e.atEpochMs >= from && e.atEpochMs < from + 1000)
      .filter((e) => e.kind === 'MC' || e.pauseMs >= 8)
      .map((e) => `${e.name} ${e.kind} ${e.pauseMs} ms`);
    console.log(
      `${String(second.second).padStart(3)}  p50 ${String(second.p50).padEnd(6)} p99 ${String(second.p99).padEnd(7)} ${seen.join(', ')}`,
    );
  }
}
