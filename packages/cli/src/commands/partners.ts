import { readFile } from 'node:fs/promises';
import { call, UsageError, type Command, type CommandContext } from '../command.js';

type Options = CommandContext['options'];

function text(options: Options, name: string, required: boolean): string | undefined {
  const value = options[name];
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (required) throw new UsageError(`--${name} is required`);
  return undefined;
}

function list(options: Options, name: string): string[] {
  const value = options[name];
  const values = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The one positional id of a command (`partners show <id>`). */
function onlyId(positionals: string[], what: string): string {
  const [id, ...rest] = positionals;
  if (!id) throw new UsageError(`the ${what} is required`);
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  return id;
}

/**
 * The client secret from `--client-secret-file` (first line, so a trailing newline does not count)
 * or `--client-secret` (which shows in `ps` and shell history).
 */
async function clientSecret(options: Options): Promise<string> {
  const file = text(options, 'client-secret-file', false);
  const inline = text(options, 'client-secret', false);
  if (file && inline)
    throw new UsageError('--client-secret and --client-secret-file exclude each other');
  if (inline) return inline;
  if (!file) throw new UsageError('--client-secret-file (or --client-secret) is required');
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --client-secret-file: ${(error as Error).message}`);
  }
  const secret = content.split(/\r?\n/)[0]?.trim() ?? '';
  if (!secret) throw new UsageError('--client-secret-file is empty');
  return secret;
}

const print = (out: (line: string) => void, value: unknown) => out(JSON.stringify(value, null, 2));

/** `marquee partners add`: `POST /admin/v1/partners`; prints `{id}`. */
export const partnersAdd: Command = {
  path: ['partners', 'add'],
  summary: 'Register a partner system and start importing its venues (prints {"id"})',
  usage:
    '--name <name> --base-url <url> --auth-url <url> --client-id <id> --client-secret-file <path> | --client-secret <secret> --venue <venueId>...',
  options: {
    name: { type: 'string' },
    'base-url': { type: 'string' },
    'auth-url': { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    'client-secret-file': { type: 'string' },
    venue: { type: 'string', multiple: true },
  },
  async run({ options, positionals, api, out }) {
    if (positionals.length > 0)
      throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
    const venues = list(options, 'venue');
    if (venues.length === 0) throw new UsageError('at least one --venue is required');
    const body = {
      name: text(options, 'name', true)!,
      baseUrl: text(options, 'base-url', true)!,
      authUrl: text(options, 'auth-url', true)!,
      clientId: text(options, 'client-id', true)!,
      clientSecret: await clientSecret(options),
      venues,
    };
    print(out, await call(api.POST('/admin/v1/partners', { body })));
  },
};

/** `marquee partners list`: `GET /admin/v1/partners`. */
export const partnersList: Command = {
  path: ['partners', 'list'],
  summary: 'Registered partners with their import and health state (no secrets)',
  usage: '',
  options: {},
  async run({ positionals, api, out }) {
    if (positionals.length > 0)
      throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
    print(out, await call(api.GET('/admin/v1/partners')));
  },
};

/** `marquee partners show <id>`: `GET /admin/v1/partners/{id}`. */
export const partnersShow: Command = {
  path: ['partners', 'show'],
  summary: 'One partner',
  usage: '<partnerId>',
  options: {},
  async run({ positionals, api, out }) {
    const id = onlyId(positionals, 'partner id');
    print(out, await call(api.GET('/admin/v1/partners/{id}', { params: { path: { id } } })));
  },
};

/** `marquee partners import <id> [--venue ...]`: `POST /admin/v1/partners/{id}/imports`. */
export const partnersImport: Command = {
  path: ['partners', 'import'],
  summary: "Import a partner's venues now (all registered ones unless --venue is given)",
  usage: '<partnerId> [--venue <venueId>...]',
  options: { venue: { type: 'string', multiple: true } },
  async run({ options, positionals, api, out }) {
    const id = onlyId(positionals, 'partner id');
    const venues = list(options, 'venue');
    const body = venues.length > 0 ? { venues } : {};
    print(
      out,
      await call(api.POST('/admin/v1/partners/{id}/imports', { params: { path: { id } }, body })),
    );
  },
};

/** `marquee partners queue [--partner <id>]`: `GET /admin/v1/partners/queued-calls`. */
export const partnersQueue: Command = {
  path: ['partners', 'queue'],
  summary: 'Partner calls the connector is retrying (queued cancels), oldest first',
  usage: '[--partner <partnerId>]',
  options: { partner: { type: 'string' } },
  async run({ options, positionals, api, out }) {
    if (positionals.length > 0)
      throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
    const partner = text(options, 'partner', false);
    const query = partner ? { partnerId: partner } : {};
    print(out, await call(api.GET('/admin/v1/partners/queued-calls', { params: { query } })));
  },
};

export const partnersCommands: readonly Command[] = [
  partnersAdd,
  partnersList,
  partnersShow,
  partnersImport,
  partnersQueue,
];
