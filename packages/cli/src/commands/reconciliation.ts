import { call, UsageError, type Command } from '../command.js';

function onlyId(positionals: string[], what: string): string {
  const [id, ...rest] = positionals;
  if (!id) throw new UsageError(`the ${what} is required`);
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  return id;
}

function count(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

const print = (out: (line: string) => void, value: unknown) => out(JSON.stringify(value, null, 2));

/** `marquee cases list`: `GET /admin/v1/reconciliation/cases`, newest first. */
export const casesList: Command = {
  path: ['cases', 'list'],
  summary: 'Reconciliation cases, newest first (prints {"cases", "page"})',
  usage: '[--open] [--partner <partnerId>] [--offset <n>] [--limit <n>]',
  options: {
    open: { type: 'boolean' },
    partner: { type: 'string' },
    offset: { type: 'string' },
    limit: { type: 'string' },
  },
  async run({ options, positionals, api, out }) {
    if (positionals.length > 0)
      throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
    const offset = count(options.offset, 'offset', 0, 1_000_000_000);
    const limit = count(options.limit, 'limit', 1, 500);
    const query = {
      ...(options.open === true ? { openOnly: true } : {}),
      ...(typeof options.partner === 'string' && options.partner
        ? { partnerId: options.partner }
        : {}),
      ...(offset !== undefined ? { offset } : {}),
      ...(limit !== undefined ? { limit } : {}),
    };
    print(out, await call(api.GET('/admin/v1/reconciliation/cases', { params: { query } })));
  },
};

/** `marquee cases show <id>`: `GET /admin/v1/reconciliation/cases/{id}`. */
export const casesShow: Command = {
  path: ['cases', 'show'],
  summary: 'One reconciliation case',
  usage: '<caseId>',
  options: {},
  async run({ positionals, api, out }) {
    const path = { path: { id: onlyId(positionals, 'case id') } };
    print(out, await call(api.GET('/admin/v1/reconciliation/cases/{id}', { params: path })));
  },
};

/** `marquee reconcile <eventId>`: `POST /admin/v1/reconciliation/events/{id}/runs`; prints the report. */
export const reconcile: Command = {
  path: ['reconcile'],
  summary: "Reconcile an event now against the partner's records (prints the report)",
  usage: '<eventId>',
  options: {},
  async run({ positionals, api, out }) {
    const path = { path: { eventId: onlyId(positionals, 'event id') } };
    print(
      out,
      await call(api.POST('/admin/v1/reconciliation/events/{eventId}/runs', { params: path })),
    );
  },
};

/** `marquee report <eventId>`: `GET /admin/v1/reconciliation/events/{id}/report`. */
export const report: Command = {
  path: ['report'],
  summary: "An event's latest reconciliation report (404 before its first run)",
  usage: '<eventId>',
  options: {},
  async run({ positionals, api, out }) {
    const path = { path: { eventId: onlyId(positionals, 'event id') } };
    print(
      out,
      await call(api.GET('/admin/v1/reconciliation/events/{eventId}/report', { params: path })),
    );
  },
};

export const reconciliationCommands: readonly Command[] = [casesList, casesShow, reconcile, report];
