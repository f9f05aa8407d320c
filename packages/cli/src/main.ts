#!/usr/bin/env node
// The `marquee` command line, a client of the admin API. Reads MARQUEE_URL and ADMIN_TOKEN.
import { text } from 'node:stream/consumers';
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  readStdin: () => text(process.stdin),
});
