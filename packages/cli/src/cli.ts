import { parseArgs } from 'node:util';
import {
  AdminApiError,
  createAdminClient,
  UsageError,
  type Command,
  type CommandContext,
} from './command.js';
import { commands as allCommands } from './commands/index.js';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  out(line: string): void;
  err(line: string): void;
  readStdin(): Promise<string>;
  /** The fetch the API client uses (tests pass a fake); it receives a `Request`. */
  fetch?: (request: Request) => Promise<Response>;
}

const DEFAULT_URL = 'http://127.0.0.1:8080';

const LOOPBACK_NAMES = new Set(['localhost', '[::1]']);

/** Whether a URL host is this machine: 127.0.0.0/8, ::1 or localhost. */
const isLoopback = (hostname: string): boolean =>
  LOOPBACK_NAMES.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname);

/**
 * The admin API's base URL, refused when the admin token would cross a network in clear text:
 * `https`, or plain `http` only to loopback (the embedded default and `pnpm stack`).
 */
export function adminBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`MARQUEE_URL is not an absolute URL: ${value}`);
  }
  if (url.protocol === 'https:') return value;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return value;
  if (url.protocol === 'http:') {
    throw new UsageError(
      `refusing to send ADMIN_TOKEN over plain http to ${url.host}: use an https MARQUEE_URL (plain http is accepted only to loopback: 127.0.0.1, ::1, localhost)`,
    );
  }
  throw new UsageError(`MARQUEE_URL must be an https URL (or http to loopback): ${url.protocol}`);
}

function usage(commands: readonly Command[]): string {
  return [
    'usage: marquee <command> [options]',
    '',
    'commands:',
    ...commands.map((c) => `  ${[...c.path, c.usage].join(' ')}\n      ${c.summary}`),
    '',
    'environment:',
    `  MARQUEE_URL   base URL of the public API (default ${DEFAULT_URL}); https, or http to loopback only`,
    '  ADMIN_TOKEN   the admin token (required)',
  ].join('\n');
}

/** Runs one command line; resolves with the exit code (0 ok, 1 refused by the API or unreachable, 2 usage). */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  commands: readonly Command[] = allCommands,
): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    io.out(usage(commands));
    return argv.length === 0 ? 2 : 0;
  }
  const command = commands.find((c) => c.path.every((word, i) => argv[i] === word));
  if (!command) {
    io.err(`marquee: unknown command "${argv.slice(0, 2).join(' ')}"\n\n${usage(commands)}`);
    return 2;
  }
  try {
    const parsed = parseArgs({
      args: argv.slice(command.path.length),
      options: command.options,
      allowPositionals: true,
      strict: true,
    });
    const token = io.env.ADMIN_TOKEN;
    if (!token) throw new UsageError('ADMIN_TOKEN is not set');
    const baseUrl = adminBaseUrl(io.env.MARQUEE_URL || DEFAULT_URL);
    const context: CommandContext = {
      options: parsed.values as CommandContext['options'],
      positionals: parsed.positionals,
      api: createAdminClient(baseUrl, token, io.fetch),
      readStdin: io.readStdin,
      out: io.out,
    };
    await command.run(context);
    return 0;
  } catch (error) {
    if (
      error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      io.err(`marquee ${command.path.join(' ')}: ${(error as Error).message}`);
      io.err(`usage: marquee ${command.path.join(' ')} ${command.usage}`);
      return 2;
    }
    if (error instanceof AdminApiError) {
      io.err(`marquee ${command.path.join(' ')}: ${error.message}`);
      return 1;
    }
    io.err(`marquee ${command.path.join(' ')}: ${(error as Error).message}`);
    return 1;
  }
}
