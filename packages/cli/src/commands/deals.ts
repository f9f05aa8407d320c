import { call, UsageError, type Command, type CommandContext } from '../command.js';

const EXCLUSIVITIES = ['EXCLUSIVE', 'NONEXCLUSIVE'] as const;
type Exclusivity = (typeof EXCLUSIVITIES)[number];

function text(options: CommandContext['options'], name: string, required: boolean) {
  const value = options[name];
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (required) throw new UsageError(`--${name} is required`);
  return undefined;
}

function exclusivity(
  options: CommandContext['options'],
  required: boolean,
): Exclusivity | undefined {
  const value = text(options, 'exclusivity', required)?.toUpperCase();
  if (value !== undefined && !(EXCLUSIVITIES as readonly string[]).includes(value))
    throw new UsageError('--exclusivity must be EXCLUSIVE or NONEXCLUSIVE');
  return value as Exclusivity | undefined;
}

function dealId(positionals: string[]): string {
  const [id, ...rest] = positionals;
  if (!id) throw new UsageError('the deal id is required');
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  return id;
}

const fields = {
  name: { type: 'string' },
  description: { type: 'string' },
  'offer-code': { type: 'string' },
  exclusivity: { type: 'string' },
} as const;

/** `marquee deals create`: the admin API's `POST /admin/v1/deals`; prints `{id}`. */
export const dealsCreate: Command = {
  path: ['deals', 'create'],
  summary: 'Create a deal on an event; it appears in deals search (prints {"id"})',
  usage:
    '--event <eventId> --name <dealName> --description <dealDescription> --exclusivity EXCLUSIVE|NONEXCLUSIVE [--offer-code <code>]',
  options: { event: { type: 'string' }, ...fields },
  async run({ options, api, out }) {
    const offerCode = text(options, 'offer-code', false);
    const body = {
      eventId: text(options, 'event', true)!,
      dealName: text(options, 'name', true)!,
      dealDescription: text(options, 'description', true)!,
      ...(offerCode !== undefined ? { dealOfferCode: offerCode } : {}),
      exclusivity: exclusivity(options, true)!,
    };
    const created = await call(api.POST('/admin/v1/deals', { body }));
    out(JSON.stringify(created, null, 2));
  },
};

/**
 * `marquee deals update <id>`: reads the deal, applies the given fields and PUTs the whole state at
 * the version it read (the admin API answers 409 if someone changed it in between).
 */
export const dealsUpdate: Command = {
  path: ['deals', 'update'],
  summary: "Change a deal's name, description, offer code or exclusivity (prints the deal)",
  usage:
    '<dealId> [--name <dealName>] [--description <text>] [--offer-code <code> | --no-offer-code] [--exclusivity EXCLUSIVE|NONEXCLUSIVE]',
  options: { ...fields, 'no-offer-code': { type: 'boolean' } },
  async run({ options, positionals, api, out }) {
    const id = dealId(positionals);
    const name = text(options, 'name', false);
    const description = text(options, 'description', false);
    const offerCode = text(options, 'offer-code', false);
    const newExclusivity = exclusivity(options, false);
    const dropOfferCode = options['no-offer-code'] === true;
    if (dropOfferCode && offerCode !== undefined)
      throw new UsageError('--offer-code and --no-offer-code exclude each other');
    if (!name && !description && !offerCode && !newExclusivity && !dropOfferCode)
      throw new UsageError('nothing to change: give at least one field');
    const path = { params: { path: { id } } };
    const current = await call(api.GET('/admin/v1/deals/{id}', path));
    const code = dropOfferCode ? undefined : (offerCode ?? current.dealOfferCode);
    const updated = await call(
      api.PUT('/admin/v1/deals/{id}', {
        ...path,
        body: {
          dealName: name ?? current.dealName,
          dealDescription: description ?? current.dealDescription,
          ...(code !== undefined ? { dealOfferCode: code } : {}),
          exclusivity: newExclusivity ?? current.exclusivity,
          expectedVersion: current.version,
        },
      }),
    );
    out(JSON.stringify(updated, null, 2));
  },
};

/** `marquee deals end <id>`: `DELETE /admin/v1/deals/{id}`; prints the ended deal. */
export const dealsEnd: Command = {
  path: ['deals', 'end'],
  summary: 'End a deal: it leaves deals search (prints the ended deal)',
  usage: '<dealId>',
  options: {},
  async run({ positionals, api, out }) {
    const path = { params: { path: { id: dealId(positionals) } } };
    await call(api.DELETE('/admin/v1/deals/{id}', path));
    out(JSON.stringify(await call(api.GET('/admin/v1/deals/{id}', path)), null, 2));
  },
};

export const dealsCommands: readonly Command[] = [dealsCreate, dealsUpdate, dealsEnd];
