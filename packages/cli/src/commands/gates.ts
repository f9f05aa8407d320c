import { call, UsageError, type Command, type CommandContext } from '../command.js';

type Options = CommandContext['options'];

/** The admin API's patterns: event ids as the gate route takes them, gate ids as it issues them. */
const EVENT_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
const GATE_ID = /^[a-z0-9]{4,40}$/;

function eventId(options: Options, required: boolean): string | undefined {
  const value = options.event;
  if (typeof value !== 'string' || value.trim() === '') {
    if (required) throw new UsageError('--event is required');
    return undefined;
  }
  const id = value.trim();
  if (!EVENT_ID.test(id)) throw new UsageError('--event must be an event id');
  return id;
}

function noPositionals(positionals: string[]): void {
  if (positionals.length > 0)
    throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
}

const print = (out: (line: string) => void, value: unknown) => out(JSON.stringify(value, null, 2));

/**
 * `marquee gates create --event <eventId> --name <name>`: `POST /admin/v1/gates`; prints
 * `{gate, token}`. The token is the scanner's bearer credential for `/gate/v1`: secure-entry keeps
 * only its hash, so this is the one time it is shown.
 */
export const gatesCreate: Command = {
  path: ['gates', 'create'],
  summary:
    'Register a gate (scanner) for an event; prints {"gate", "token"}: the token is shown only this once',
  usage: '--event <eventId> --name <name>',
  options: { event: { type: 'string' }, name: { type: 'string' } },
  async run({ options, positionals, api, out }) {
    noPositionals(positionals);
    const event = eventId(options, true)!;
    const name = typeof options.name === 'string' ? options.name.trim() : '';
    if (name === '') throw new UsageError('--name is required');
    if (name.length > 200) throw new UsageError('--name must be at most 200 characters');
    print(out, await call(api.POST('/admin/v1/gates', { body: { name, eventId: event } })));
  },
};

/** `marquee gates list [--event <eventId>]`: `GET /admin/v1/gates`, newest first, never tokens. */
export const gatesList: Command = {
  path: ['gates', 'list'],
  summary: 'Registered gates, newest first, all or of one event (never their tokens)',
  usage: '[--event <eventId>]',
  options: { event: { type: 'string' } },
  async run({ options, positionals, api, out }) {
    noPositionals(positionals);
    const event = eventId(options, false);
    const query = event ? { eventId: event } : {};
    print(out, await call(api.GET('/admin/v1/gates', { params: { query } })));
  },
};

/** `marquee gates revoke <gateId>`: `DELETE /admin/v1/gates/{id}`; prints `{gate}`. */
export const gatesRevoke: Command = {
  path: ['gates', 'revoke'],
  summary:
    'Revoke a gate: its token stops working (within the gate cache time on other replicas); prints {"gate"}',
  usage: '<gateId>',
  options: {},
  async run({ positionals, api, out }) {
    const [id, ...rest] = positionals;
    if (!id) throw new UsageError('the gate id is required (printed by `marquee gates create`)');
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    if (!GATE_ID.test(id)) throw new UsageError('the gate id is 4-40 lowercase letters and digits');
    print(out, await call(api.DELETE('/admin/v1/gates/{id}', { params: { path: { id } } })));
  },
};

export const gatesCommands: readonly Command[] = [gatesCreate, gatesList, gatesRevoke];
