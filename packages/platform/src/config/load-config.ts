import { readFileSync } from 'node:fs';
import type { z } from 'zod';

export interface ConfigIssue {
  /** The environment variable at fault (`X` or `X_FILE`). Never its value: it may be a secret. */
  variable: string;
  message: string;
}

/** Thrown by {@link loadConfig} with every problem at once, so one failed start shows them all. */
export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(
      `invalid configuration (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n` +
        issues.map((issue) => `  - ${issue.variable}: ${issue.message}`).join('\n'),
    );
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Validates the environment against a zod object schema and returns the parsed config.
 *
 * - For every key `X`, `X_FILE` may name a file whose trimmed content is used instead: Kubernetes
 *   mounts secrets as files, and a value in a file never shows up in `/proc/<pid>/environ` or in
 *   `kubectl describe`. Setting both `X` and `X_FILE` is an error rather than a silent precedence.
 * - An empty variable counts as unset, so that `FOO=` in a manifest falls back to the default
 *   instead of failing a `.min(1)` or coercing to 0.
 * - Error messages name variables, never values; zod 4 does not echo inputs unless asked to.
 */
export function loadConfig<S extends z.ZodObject>(schema: S, env: Env = process.env): z.output<S> {
  const issues: ConfigIssue[] = [];
  // Keys whose source was already reported; zod's "required" on top would only repeat it.
  const reported = new Set<string>();
  const input: Record<string, string | undefined> = {};

  for (const key of Object.keys(schema.shape)) {
    const direct = nonEmpty(env[key]);
    const fileVariable = `${key}_FILE`;
    const filePath = nonEmpty(env[fileVariable]);
    if (filePath === undefined) {
      input[key] = direct;
      continue;
    }
    if (direct !== undefined) {
      issues.push({ variable: key, message: `set both ${key} and ${fileVariable}; set only one` });
      reported.add(key);
      continue;
    }
    try {
      input[key] = nonEmpty(readFileSync(filePath, 'utf8').trim());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      issues.push({ variable: fileVariable, message: `cannot read the file it names (${code})` });
      reported.add(key);
    }
  }

  const result = schema.safeParse(input);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const variable = issue.path.length > 0 ? String(issue.path[0]) : '(config)';
      if (reported.has(variable)) continue;
      // An absent required variable reports as "expected string, received undefined" in zod 4;
      // say it plainly instead.
      const missing = issue.code === 'invalid_type' && input[variable] === undefined;
      issues.push({
        variable,
        message: missing ? 'is required but not set' : issue.message,
      });
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  // safeParse succeeded whenever issues is empty.
  return (result as { data: z.output<S> }).data;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
