import { setFlagsFromString } from 'node:v8';

/**
 * Sets V8 flags on the running process (`v8.setFlagsFromString`), as early as possible: for flags
 * Node refuses in NODE_OPTIONS that a service needs however it is launched (ServiceDefinition's
 * `v8Flags`). Only flags V8 reads as it goes belong here; heap sizes are fixed at start and go on
 * the command line (package.json `marquee.nodeOptions`).
 */
export function applyV8Flags(flags: readonly string[] | undefined): void {
  for (const flag of flags ?? []) {
    if (!/^--[a-z0-9-]+(=[\w.-]+)?$/.test(flag)) throw new Error(`not a V8 flag: ${flag}`);
    setFlagsFromString(flag);
  }
}

/**
 * Counts Buffers' memory outside the JavaScript heap in the heap's global limit, instead of
 * starting a full marking for every 64 MB of Buffers allocated. A service that answers with Buffers
 * of tens of kilobytes hundreds of times a second otherwise runs a major collection about every
 * second whatever its live heap (bench/discovery: the edge, catalog-indexer README "V8 options").
 */
export const EXTERNAL_MEMORY_IN_GLOBAL_LIMIT = '--external-memory-accounted-in-global-limit';
