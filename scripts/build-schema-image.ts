#!/usr/bin/env node
/**
 * Writes the schema artifact for analytics teams: every message of proto/ and the well-known types
 * they import, compiled by `buf build` into one binary FileDescriptorSet (comments kept), at
 *
 *   build/schema/marquee-proto-<version>-<commit>.binpb     (git-ignored; `-dirty` when proto/ has
 *                                                            uncommitted changes, `nogit` without git)
 *
 * <version> is @marquee/proto's, the `info.version` of docs/api/asyncapi.yaml; <commit> the first 12
 * hex digits of HEAD. docs/analytics-schema.md tells how to decode records with it.
 *
 *   node scripts/build-schema-image.ts [--out <dir>]     (`pnpm schema:image`)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDescriptorSet, loadRegistry } from './proto-json-schema.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The artifact's file name for this version and working tree. */
export function imageName(): string {
  const { version } = JSON.parse(
    readFileSync(join(root, 'packages/proto/package.json'), 'utf8'),
  ) as { version: string };
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  let commit: string;
  try {
    commit = git('rev-parse', '--short=12', 'HEAD');
    if (git('status', '--porcelain', '--', 'proto') !== '') commit += '-dirty';
  } catch {
    commit = 'nogit'; // a copy of the sources without git: the version alone names it
  }
  return `marquee-proto-${version}-${commit}.binpb`;
}

function main(): void {
  const args = process.argv.slice(2);
  const outArg = args.indexOf('--out');
  const dir =
    outArg >= 0 && args[outArg + 1] ? resolve(args[outArg + 1]!) : join(root, 'build/schema');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, imageName());
  buildDescriptorSet(file);
  const bytes = readFileSync(file);
  // Read back: the file must be a FileDescriptorSet holding the topic messages.
  const registry = loadRegistry(new Uint8Array(bytes));
  if (!registry.getMessage('marquee.catalog.v1.EventChanged')) {
    throw new Error(`${file} does not hold marquee.catalog.v1.EventChanged`);
  }
  console.log(`build-schema-image: wrote ${relative(process.cwd(), file)} (${bytes.length} bytes)`);
}

if (import.meta.main) main();
