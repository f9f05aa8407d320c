#!/usr/bin/env node
/**
 * Writes docs/api/openapi.json, the OpenAPI 3.1 contract of the public HTTP API, from the running
 * routes: it builds edge-gateway's fastify app in this process (every route plugin, no back end,
 * no socket) and writes the document the edge serves at `/openapi.json`.
 *
 *   node scripts/generate-openapi.ts           regenerate the file
 *   node scripts/generate-openapi.ts --check   exit 1 when the committed file is not what the
 *                                              routes generate (run by `pnpm test`)
 *
 * The output is formatted with the repository's prettier settings so that `pnpm lint` accepts it as
 * written. The routes are TypeScript importing `.js` specifiers, which Node's type stripping cannot
 * follow, so esbuild (a root dependency) bundles the edge's and the workspace packages' sources in
 * memory; every other dependency stays an import of its installed file (fastify's plugins read
 * files next to their code), so this works in a fresh clone without a build.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
export const outputPath = join(root, 'docs/api/openapi.json');
const entryPath = join(root, 'services/edge-gateway/src/ports/http/openapi-document.ts');

/**
 * Leaves every dependency outside the workspace to Node, as an import of the file esbuild resolved
 * from the importing source (pnpm keeps each package's dependencies next to it, so they would not
 * resolve from the bundle's own location).
 */
const installedDependencies: Plugin = {
  name: 'installed-dependencies',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@marquee/') || args.pluginData === 'resolving') return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'resolving',
      });
      if (found.errors.length > 0) return { errors: found.errors };
      if (found.external) return { path: args.path, external: true };
      return { path: pathToFileURL(found.path).href, external: true };
    });
  },
};

/** The document the routes generate, as an object. */
export async function buildDocument(): Promise<Record<string, unknown>> {
  const { build } = await import('esbuild');
  const bundled = await build({
    entryPoints: [entryPath],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    conditions: ['@marquee/source'],
    plugins: [installedDependencies],
    logLevel: 'error',
  });
  // Imported from a file of its own, inside the repository (a data: URL is not something every
  // loader accepts); removed at once.
  const dir = join(root, 'node_modules', '.cache', 'marquee-openapi');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `openapi-document-${process.pid}.mjs`);
  try {
    writeFileSync(file, bundled.outputFiles[0]!.text);
    const mod = (await import(pathToFileURL(file).href)) as {
      buildOpenApiDocument(): Promise<Record<string, unknown>>;
    };
    return await mod.buildOpenApiDocument();
  } finally {
    rmSync(file, { force: true });
  }
}

/** The file's text: JSON, formatted by prettier with the repository's settings. */
export async function renderDocument(document: Record<string, unknown>): Promise<string> {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(outputPath)) ?? {};
  return prettier.format(JSON.stringify(document), { ...options, filepath: outputPath });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  // `--file <path>` writes or checks another file; the default is the docs one.
  const fileArg = args.indexOf('--file');
  const file = fileArg >= 0 && args[fileArg + 1] ? resolve(args[fileArg + 1]!) : outputPath;
  const text = await renderDocument(await buildDocument());
  const shown = relative(root, file);
  if (check) {
    let committed = '';
    try {
      committed = readFileSync(file, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (committed !== text) {
      console.error(
        `generate-openapi: FAIL: ${shown} is not what the edge's routes generate.\n` +
          "Run 'node scripts/generate-openapi.ts' (or 'pnpm generate') and commit the result.",
      );
      process.exit(1);
    }
    console.log(`generate-openapi: ${shown} is up to date`);
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`generate-openapi: wrote ${shown}`);
}

if (import.meta.main) await main();
