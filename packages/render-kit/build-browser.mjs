#!/usr/bin/env node
// The browser bundle of the kit: one ESM file with bwip-js and otpauth inside, served by the edge
// at /tickets/render-kit.js and usable by any partner page (`import { mountTicket } from ...`).
import { build } from 'esbuild';

await build({
  entryPoints: ['src/index.ts'],
  outfile: 'dist/browser/render-kit.js',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
