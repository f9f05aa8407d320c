import { call, UsageError, type Command } from '../command.js';

/** `marquee apps create`: `POST /admin/v1/apps`. */
export const appsCreate: Command = {
  path: ['apps', 'create'],
  summary: 'Register a developer app; prints its API key and OAuth client credentials (JSON)',
  usage:
    '--name <name> --redirect-uri <uri> [--redirect-uri <uri>...] [--quota-per-day <n>] [--quota-per-second <n>] [--require-pkce] [--rotate-refresh-tokens]',
  options: {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    'quota-per-day': { type: 'string' },
    'quota-per-second': { type: 'string' },
    'require-pkce': { type: 'boolean' },
    'rotate-refresh-tokens': { type: 'boolean' },
  },
  async run({ options, api, out }) {
    const name = options.name;
    const redirectUris = options['redirect-uri'];
    if (typeof name !== 'string' || name === '') throw new UsageError('--name is required');
    if (!Array.isArray(redirectUris) || redirectUris.length === 0)
      throw new UsageError('at least one --redirect-uri is required');
    const quota = {
      ...positive('quota-per-day', options['quota-per-day'], 'perDay'),
      ...positive('quota-per-second', options['quota-per-second'], 'perSecond'),
    };
    const oauth = {
      ...(options['require-pkce'] === true ? { requirePkce: true } : {}),
      ...(options['rotate-refresh-tokens'] === true ? { rotateRefreshTokens: true } : {}),
    };
    const created = await call(
      api.POST('/admin/v1/apps', {
        body: {
          name,
          redirectUris,
          ...(Object.keys(quota).length > 0 ? { quota } : {}),
          ...(Object.keys(oauth).length > 0 ? { oauth } : {}),
        },
      }),
    );
    out(JSON.stringify(created, null, 2));
  },
};

function positive(
  flag: string,
  raw: unknown,
  key: 'perDay' | 'perSecond',
): Partial<Record<'perDay' | 'perSecond', number>> {
  if (raw === undefined) return {};
  const value = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || value < 1)
    throw new UsageError(`--${flag} must be a whole number of at least 1`);
  return { [key]: value };
}

/** The restricted services `marquee apps approve|unapprove` can name, as flags. */
const accessOptions = {
  commerce: { type: 'boolean' },
  distribution: { type: 'boolean' },
} as const;

/** The access flags the named services change (one or both). */
function accessChange(options: Record<string, unknown>, grant: boolean) {
  const change = {
    ...(options.commerce === true ? { commerceShopping: grant } : {}),
    ...(options.distribution === true ? { partnerDistribution: grant } : {}),
  };
  if (Object.keys(change).length === 0)
    throw new UsageError('name a service: --commerce and/or --distribution');
  return change;
}

function appIdOf(positionals: readonly string[]): string {
  const [appId, ...rest] = positionals;
  if (!appId) throw new UsageError('the app id is required (printed by `marquee apps create`)');
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  return appId;
}

/**
 * `marquee apps approve <appId> --commerce|--distribution`: `PATCH /admin/v1/apps/{appId}/access`.
 * Within 30 s on every edge the app may use the commerce shopping services (cart, delivery,
 * payment, purchase), or distribute through the partner cart, the order read and secure render.
 */
export const appsApprove: Command = {
  path: ['apps', 'approve'],
  summary:
    'Approve an app for a restricted service (--commerce: commerce shopping, --distribution: partner cart); effective within 30 s',
  usage: '<appId> [--commerce] [--distribution]',
  options: accessOptions,
  async run({ positionals, options, api, out }) {
    const appId = appIdOf(positionals);
    const body = accessChange(options, true);
    const answer = await call(
      api.PATCH('/admin/v1/apps/{appId}/access', { params: { path: { appId } }, body }),
    );
    out(JSON.stringify(answer, null, 2));
  },
};

/** `marquee apps unapprove <appId> --commerce|--distribution`: withdraws the approval (within 30 s). */
export const appsUnapprove: Command = {
  path: ['apps', 'unapprove'],
  summary:
    "Withdraw an app's approval for a restricted service (--commerce, --distribution); effective within 30 s",
  usage: '<appId> [--commerce] [--distribution]',
  options: accessOptions,
  async run({ positionals, options, api, out }) {
    const appId = appIdOf(positionals);
    const body = accessChange(options, false);
    const answer = await call(
      api.PATCH('/admin/v1/apps/{appId}/access', { params: { path: { appId } }, body }),
    );
    out(JSON.stringify(answer, null, 2));
  },
};

/** The OAuth settings `marquee apps update` changes, each with its `--no-` form. */
const oauthSettings = {
  'require-pkce': 'requirePkce',
  'rotate-refresh-tokens': 'rotateRefreshTokens',
} as const;

/**
 * `marquee apps update <appId> [--require-pkce | --no-require-pkce] [--rotate-refresh-tokens |
 * --no-rotate-refresh-tokens]`: `PATCH /admin/v1/apps/{appId}/oauth`. Settings not named keep their
 * value; effective at the next authorization or refresh.
 */
export const appsUpdate: Command = {
  path: ['apps', 'update'],
  summary: "Change an app's OAuth settings (require PKCE, rotate refresh tokens); prints them all",
  usage:
    '<appId> [--require-pkce | --no-require-pkce] [--rotate-refresh-tokens | --no-rotate-refresh-tokens]',
  options: Object.fromEntries(
    Object.keys(oauthSettings).flatMap((flag) => [
      [flag, { type: 'boolean' }],
      [`no-${flag}`, { type: 'boolean' }],
    ]),
  ) as Command['options'],
  async run({ positionals, options, api, out }) {
    const appId = appIdOf(positionals);
    const change: Record<string, boolean> = {};
    for (const [flag, setting] of Object.entries(oauthSettings)) {
      const on = options[flag] === true;
      const off = options[`no-${flag}`] === true;
      if (on && off) throw new UsageError(`--${flag} and --no-${flag} exclude each other`);
      if (on || off) change[setting] = on;
    }
    if (Object.keys(change).length === 0) {
      throw new UsageError('name a setting: --[no-]require-pkce, --[no-]rotate-refresh-tokens');
    }
    const answer = await call(
      api.PATCH('/admin/v1/apps/{appId}/oauth', { params: { path: { appId } }, body: change }),
    );
    out(JSON.stringify(answer, null, 2));
  },
};

/** `marquee apps access <appId>`: `GET /admin/v1/apps/{appId}/access`. */
export const appsAccess: Command = {
  path: ['apps', 'access'],
  summary: 'Show the restricted services an app is approved for (JSON)',
  usage: '<appId>',
  options: {},
  async run({ positionals, api, out }) {
    const appId = appIdOf(positionals);
    const access = await call(
      api.GET('/admin/v1/apps/{appId}/access', { params: { path: { appId } } }),
    );
    out(JSON.stringify(access, null, 2));
  },
};

/** `marquee apps get <appId>`: `GET /admin/v1/apps/{appId}` (never a secret). */
export const appsGet: Command = {
  path: ['apps', 'get'],
  summary: 'Show an app: name, client id, tracking id, quotas, access, OAuth settings (JSON)',
  usage: '<appId>',
  options: {},
  async run({ positionals, api, out }) {
    const appId = appIdOf(positionals);
    const app = await call(api.GET('/admin/v1/apps/{appId}', { params: { path: { appId } } }));
    out(JSON.stringify(app, null, 2));
  },
};
