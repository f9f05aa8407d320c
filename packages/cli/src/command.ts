import type { ParseArgsConfig } from 'node:util';
import {
  createMarqueeClient,
  MarqueeApiError,
  unwrap,
  type MarqueeClient,
} from '@marquee/api-client';

/** What a command gets: its parsed options, the environment's API client and output streams. */
export interface CommandContext {
  options: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** The public API's typed client, with the admin token (`@marquee/api-client`). */
  api: MarqueeClient;
  /** Reads all of standard input (for secrets that must not appear in `ps`). */
  readStdin(): Promise<string>;
  out(line: string): void;
}

/**
 * One `marquee` command. A team adds its commands in its own file under `src/commands/` and lists
 * them in `src/commands/index.ts`; nothing else changes.
 */
export interface Command {
  /** Words that select it, e.g. `['apps', 'create']`. */
  path: readonly string[];
  summary: string;
  /** Usage line after the path, e.g. `--name <name> --redirect-uri <uri>...`. */
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run(context: CommandContext): Promise<void>;
}

/** A call of the admin API answered with an error body. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`admin API answered ${status}: ${JSON.stringify(body)}`);
  }
}

/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/** The edge's admin API (`{MARQUEE_URL}/admin/v1/*`, bearer `ADMIN_TOKEN`), typed from the OpenAPI document. */
export function createAdminClient(
  baseUrl: string,
  token: string,
  fetchImpl?: (request: Request) => Promise<Response>,
): MarqueeClient {
  return createMarqueeClient({
    baseUrl,
    adminToken: token,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

/**
 * The data of an admin API answer (`''` for an empty one such as a 204), or `AdminApiError` with
 * the documented error body (the admin family's `{error: {code, message}}`).
 */
export async function call<A extends { data?: unknown; error?: unknown; response: Response }>(
  answer: Promise<A>,
): Promise<Exclude<A['data'], undefined>> {
  try {
    return ((await unwrap(answer)) ?? '') as Exclude<A['data'], undefined>;
  } catch (error) {
    if (error instanceof MarqueeApiError) throw new AdminApiError(error.status, error.body ?? '');
    throw error;
  }
}
