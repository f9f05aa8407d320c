import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';

/**
 * A package's V8 options, declared once in its package.json under `marquee.v8` and read from there
 * by every launcher: the start script and the local stacks (through `@marquee/platform/v8/launch`),
 * the container image and the Helm chart (their NODE_OPTIONS are generated from it), `runService`
 * and the embedded runner (through `ServiceDefinition.v8`, which is that declaration).
 */
export interface V8Options {
  /**
   * Given on the node command line (or in NODE_OPTIONS) before the heap exists: heap and young
   * generation sizes, V8's thread pool.
   */
  nodeOptions: readonly string[];
  /**
   * Set by the process on itself at start (`applyV8Flags`): flags V8 reads as it goes that Node
   * refuses in NODE_OPTIONS, so a container started with NODE_OPTIONS still gets them.
   */
  runtimeFlags: readonly string[];
}

export const NO_V8_OPTIONS: V8Options = { nodeOptions: [], runtimeFlags: [] };

const OPTION = /^--[a-z0-9-]+(=[\w.-]+)?$/;

/** `--max-semi-space-size=16` → `--max-semi-space-size` (Node and V8 accept `_` for `-`). */
export const optionName = (option: string): string => option.split('=')[0]!.replace(/_/g, '-');

function checked(options: unknown, where: string): string[] {
  if (options === undefined) return [];
  if (!Array.isArray(options)) throw new Error(`${where}: not a list of options`);
  for (const option of options) {
    if (typeof option !== 'string' || !OPTION.test(option))
      throw new Error(`${where}: not a V8 option: ${String(option)}`);
  }
  return options as string[];
}

/** The `marquee.v8` declaration of a parsed package.json, checked (no declaration: none). */
export function v8OptionsOf(manifest: unknown, where = 'package.json'): V8Options {
  const v8 = (manifest as { marquee?: { v8?: unknown } } | undefined)?.marquee?.v8;
  if (v8 === undefined) return NO_V8_OPTIONS;
  const { nodeOptions, runtimeFlags, ...rest } = v8 as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new Error(`${where}: marquee.v8 has unknown keys: ${unknown}`);
  return {
    nodeOptions: checked(nodeOptions, `${where} marquee.v8.nodeOptions`),
    runtimeFlags: checked(runtimeFlags, `${where} marquee.v8.runtimeFlags`),
  };
}

/**
 * The options of a process hosting several packages (the embedded default hosts every service):
 * each option once. Two packages asking for one option with different values is an error, never a
 * silent pick, because either answer would run one of them differently from its deployment.
 */
export function mergeV8Options(
  declarations: ReadonlyArray<{ name: string; v8: V8Options }>,
): V8Options {
  const merge = (key: keyof V8Options) => {
    const byName = new Map<string, { option: string; from: string }>();
    for (const { name, v8 } of declarations) {
      for (const option of v8[key]) {
        const seen = byName.get(optionName(option));
        if (seen && seen.option !== option)
          throw new Error(
            `V8 options disagree: ${seen.from} declares ${seen.option}, ${name} ${option}`,
          );
        if (!seen) byName.set(optionName(option), { option, from: name });
      }
    }
    return [...byName.values()].map(({ option }) => option);
  };
  return { nodeOptions: merge('nodeOptions'), runtimeFlags: merge('runtimeFlags') };
}

type Manifest = { name?: string; dependencies?: Record<string, string> };

const readManifest = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

/**
 * The V8 options a process running the package in `packageDir` needs: its own declaration and
 * those of the workspace packages (`@marquee/*`) it depends on and therefore hosts, as the embedded
 * default hosts every service. Services depend on no other service, so theirs are their own.
 */
export function readV8Options(packageDir: string): V8Options {
  const file = join(packageDir, 'package.json');
  const manifest = readManifest(file);
  const declarations = [{ name: manifest.name ?? file, v8: v8OptionsOf(manifest, file) }];
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    if (!dependency.startsWith('@marquee/')) continue;
    const dependencyFile = join(packageDir, 'node_modules', dependency, 'package.json');
    if (!existsSync(dependencyFile)) continue;
    declarations.push({
      name: dependency,
      v8: v8OptionsOf(readManifest(dependencyFile), dependencyFile),
    });
  }
  return mergeV8Options(declarations);
}

/** The directory of the nearest package.json at or above `file`'s directory. */
export function packageDirOf(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${file}`);
  }
}

/**
 * The `nodeOptions` this process was not started with: absent from its command line and from
 * NODE_OPTIONS under any value (an operator's own value for an option wins over the declaration).
 */
export function missingNodeOptions(
  nodeOptions: readonly string[],
  execArgv: readonly string[] = process.execArgv,
  environment: string | undefined = process.env.NODE_OPTIONS,
): string[] {
  const given = new Set(
    [...execArgv, ...(environment ?? '').split(/\s+/)].filter(Boolean).map(optionName),
  );
  return nodeOptions.filter((option) => !given.has(optionName(option)));
}

/**
 * Sets V8 flags on the running process (`v8.setFlagsFromString`), as early as possible: the
 * `runtimeFlags` of a declaration, which Node refuses in NODE_OPTIONS. Heap sizes are fixed when
 * the process starts and belong in `nodeOptions`.
 */
export function applyV8Flags(flags: readonly string[] | undefined): void {
  for (const flag of flags ?? []) {
    if (!OPTION.test(flag)) throw new Error(`not a V8 flag: ${flag}`);
    setFlagsFromString(flag);
  }
}
