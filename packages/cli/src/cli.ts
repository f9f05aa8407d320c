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
  fetch?: typeof fetch;
}

const DEFAULT_URL = 'http://127.0.0.1:8080';

function usage(commands: readonly Command[]): string {
  return [
    'usage: marquee <command> [options]',
    '',
    'commands:',
    ...commands.map((c) => `  ${[...c.path, c.usage].join(' ')}\n      ${c.summary}`),
    '',
    'environment:',
    `  MARQUEE_URL   base URL of the public API (default ${DEFAULT_URL})`,
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
    const context: CommandContext = {
      options: parsed.values as CommandContext['options'],
      positionals: parsed.positionals,
      admin: createAdminClient(io.env.MARQUEE_URL || DEFAULT_URL, token, io.fetch),
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
