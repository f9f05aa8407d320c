import type { ParseArgsConfig } from 'node:util';

/** What a command gets: its parsed options, the environment's admin client and output streams. */
export interface CommandContext {
  options: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  admin: AdminClient;
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

export interface AdminClient {
  post<T>(path: string, body: unknown): Promise<T>;
  /** Any method; the parsed JSON answer (`''` for an empty one such as a 204). */
  request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<T>;
}

/** The edge's admin API (`{MARQUEE_URL}/admin/v1/*`, bearer `ADMIN_TOKEN`). */
export function createAdminClient(
  baseUrl: string,
  token: string,
  fetchImpl: typeof fetch = fetch,
): AdminClient {
  const client: AdminClient = {
    post: (path, body) => client.request('POST', path, body),
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      const response = await fetchImpl(new URL(`/admin/v1/${path}`, baseUrl), {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      if (!response.ok) throw new AdminApiError(response.status, parsed);
      return parsed as T;
    },
  };
  return client;
}
