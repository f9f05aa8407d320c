/**
 * What processes use while a benchmark's work runs: CPU from /proc/<pid>/stat and memory from
 * /proc/<pid>/status (Linux; a process that is gone counts 0). Shared by `resources` (the Helm
 * chart's requests) and `onsale` (what an on-sale asks of each service).
 */
import { readFileSync } from 'node:fs';
import { cpuSecondsOf } from './stack-run.ts';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** A field of /proc/<pid>/status in MiB: `VmRSS` resident now, `VmHWM` the most since it started. */
export const memoryMiB = (pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
  } catch {
    return 0; // gone
  }
};

export interface Window {
  seconds: number;
  /** CPU over the window, in thousandths of a core. */
  cpuMillicores: Record<string, number>;
  /** The highest resident set sampled every 500 ms over the window. */
  rssMiB: Record<string, number>;
}

/** CPU of each process while `work` runs (at least `seconds`), and its highest RSS sampled meanwhile. */
export async function measure<T>(
  pids: Map<string, number | undefined>,
  seconds: number,
  work: () => Promise<T>,
): Promise<Window & { result: T }> {
  const before = cpuSecondsOf(pids);
  const peak = new Map([...pids].map(([name, pid]) => [name, memoryMiB(pid, 'VmRSS')]));
  const started = performance.now();
  const sampler = setInterval(() => {
    for (const [name, pid] of pids)
      peak.set(name, Math.max(peak.get(name)!, memoryMiB(pid, 'VmRSS')));
  }, 500);
  let result: T;
  try {
    [result] = await Promise.all([work(), delay(seconds * 1000)]);
  } finally {
    clearInterval(sampler);
  }
  const elapsed = (performance.now() - started) / 1000;
  const after = cpuSecondsOf(pids);
  const cpuMillicores: Record<string, number> = {};
  const rssMiB: Record<string, number> = {};
  for (const name of pids.keys()) {
    cpuMillicores[name] = Math.round(
      (((after.get(name) ?? 0) - (before.get(name) ?? 0)) * 1000) / elapsed,
    );
    rssMiB[name] = peak.get(name)!;
  }
  return { seconds: round(elapsed), cpuMillicores, rssMiB, result };
}

/**
 * Per process, each window's CPU (`<window>CpuMillicores`) and highest sampled resident set
 * (`<window>PeakRssMiB`), and its VmHWM now (`vmHwmMiB`, the most it held since it started).
 */
export function byProcess(
  pids: Map<string, number | undefined>,
  windows: Record<string, Window>,
): Record<string, Record<string, number | undefined>> {
  return Object.fromEntries(
    [...pids.keys()].sort().map((name) => {
      const row: Record<string, number | undefined> = {};
      for (const [label, window] of Object.entries(windows)) {
        row[`${label}CpuMillicores`] = window.cpuMillicores[name];
        row[`${label}PeakRssMiB`] = window.rssMiB[name];
      }
      row.vmHwmMiB = memoryMiB(pids.get(name), 'VmHWM');
      return [name, row];
    }),
  );
}
