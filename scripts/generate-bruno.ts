#!/usr/bin/env node
/**
 * Writes a Bruno collection of the public HTTP API from docs/api/openapi.json: one `.bru` request
 * per operation (named by its operationId), one folder per tag, and an environment for the local
 * `pnpm start` (the embedded default on http://127.0.0.1:8080).
 *
 *   pnpm bruno                                        → build/bruno/marquee (not committed)
 *   node scripts/generate-bruno.ts --out <directory>  → another directory (emptied first)
 *
 * The conversion is Bruno's own (`@usebruno/converters` openApiToBruno, `.bru` text by
 * `@usebruno/filestore`); this script adds what the document's security says per operation: the
 * admin token or a gate token as a bearer, the app's key as the `apikey` query parameter, the fan's
 * access token as `X-PLATFORM-ACCESS-TOKEN` on the commerce family. Their values are environment
 * variables (`{{adminToken}}`, `{{apiKey}}`, `{{gateToken}}`, `{{fanToken}}`), kept as Bruno
 * secrets. The collection is generated on demand, not committed: it is the document in another
 * form, and docs/api/openapi.json is already the reviewed, committed contract.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const documentPath = join(root, 'docs/api/openapi.json');
export const defaultOutput = join(root, 'build/bruno/marquee');

// CommonJS packages: loaded through require so that Node's type stripping runs this file as is.
const require = createRequire(import.meta.url);
const { openApiToBruno } = require('@usebruno/converters') as {
  openApiToBruno(document: unknown, options: { groupBy: 'tags' | 'path' }): BrunoCollection;
};
const filestore = require('@usebruno/filestore') as {
  stringifyRequest(item: BrunoItem, options: { format: 'bru' }): string;
  stringifyFolder(folder: unknown, options: { format: 'bru' }): string;
  stringifyCollection(root: unknown, config: unknown, options: { format: 'bru' }): string;
  stringifyEnvironment(environment: unknown, options: { format: 'bru' }): string;
};

interface BrunoParam {
  uid?: string;
  name: string;
  value: string;
  description?: string;
  enabled: boolean;
  type?: string;
}
interface BrunoItem {
  name: string;
  type: string;
  seq?: number;
  root?: { meta?: Record<string, unknown> } & Record<string, unknown>;
  items?: BrunoItem[];
  request?: {
    url: string;
    method: string;
    docs?: string;
    auth: Record<string, unknown> & { mode: string };
    headers: BrunoParam[];
    params: BrunoParam[];
  };
}
interface BrunoCollection {
  name: string;
  items: BrunoItem[];
  root: unknown;
}

interface OpenApiOperation {
  operationId: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Every operation of the document by `METHOD /path/{param}`. */
function operationsOf(document: { paths: Record<string, Record<string, OpenApiOperation>> }) {
  const operations = new Map<string, OpenApiOperation>();
  for (const [path, item] of Object.entries(document.paths))
    for (const method of METHODS)
      if (item[method]) operations.set(`${method.toUpperCase()} ${path}`, item[method]);
  return operations;
}

/** `{{baseUrl}}/admin/v1/orders/:orderId` → `/admin/v1/orders/{orderId}`. */
export function documentPathOf(url: string): string {
  return url.replace(/^\{\{baseUrl\}\}/, '').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** A file or folder name: letters, digits, `-` and `_` only. */
const fileName = (name: string) => name.replace(/[^A-Za-z0-9_-]+/g, '_');

const noAuth = { basic: null, bearer: null, digest: null, apikey: null, oauth2: null };

/** The request's auth from the operation's security (the first scheme the options can fill). */
function authOf(operation: OpenApiOperation): Record<string, unknown> & { mode: string } {
  const schemes = (operation.security ?? []).flatMap((entry) => Object.keys(entry));
  if (schemes.includes('adminToken'))
    return { ...noAuth, mode: 'bearer', bearer: { token: '{{adminToken}}' } };
  if (schemes.includes('gateToken'))
    return { ...noAuth, mode: 'bearer', bearer: { token: '{{gateToken}}' } };
  if (schemes.includes('apiKey'))
    return {
      ...noAuth,
      mode: 'apikey',
      apikey: { key: 'apikey', value: '{{apiKey}}', placement: 'queryparams' },
    };
  return { ...noAuth, mode: 'none' };
}

/** The collection as files: relative path → text. */
export function renderCollection(): Map<string, string> {
  const document = JSON.parse(readFileSync(documentPath, 'utf8'));
  const operations = operationsOf(document);
  const collection = openApiToBruno(document, { groupBy: 'tags' });
  const files = new Map<string, string>();
  files.set(
    'bruno.json',
    `${JSON.stringify(
      {
        version: '1',
        name: 'Marquee public API',
        type: 'collection',
        ignore: ['node_modules', '.git'],
      },
      null,
      2,
    )}\n`,
  );
  files.set(
    'collection.bru',
    filestore.stringifyCollection(collection.root, {}, { format: 'bru' }),
  );
  const seen = new Set<string>();
  collection.items.forEach((folder, folderIndex) => {
    if (folder.type !== 'folder' || !folder.items)
      throw new Error(`expected a folder per tag, got ${folder.type} ${folder.name}`);
    const dir = fileName(folder.name);
    files.set(
      `${dir}/folder.bru`,
      filestore.stringifyFolder(
        { ...folder.root, meta: { ...folder.root?.meta, name: folder.name, seq: folderIndex + 1 } },
        { format: 'bru' },
      ),
    );
    folder.items.forEach((item, index) => {
      const request = item.request!;
      const key = `${request.method.toUpperCase()} ${documentPathOf(request.url)}`;
      const operation = operations.get(key);
      if (!operation) throw new Error(`no operation of the document is ${key}`);
      if (seen.has(operation.operationId)) throw new Error(`${operation.operationId} twice`);
      seen.add(operation.operationId);
      request.auth = authOf(operation);
      // The converter fills a credential parameter of its own (commerce's `api-key`): the auth
      // block sends the key once, as `apikey`, so such a parameter stays listed but off.
      for (const param of request.params) {
        if (param.type === 'query' && ['apikey', 'api-key'].includes(param.name)) {
          param.value = '';
          param.enabled = false;
        }
      }
      for (const header of request.headers) {
        if (header.name.toLowerCase() === 'x-platform-access-token') {
          header.value = '{{fanToken}}';
          header.enabled = true;
        }
      }
      request.docs = [`operationId: \`${operation.operationId}\``, request.docs ?? '']
        .filter((line) => line !== '')
        .join('\n\n');
      files.set(
        `${dir}/${operation.operationId}.bru`,
        filestore.stringifyRequest({ ...item, seq: index + 1 }, { format: 'bru' }),
      );
    });
  });
  const missing = [...operations.values()].filter((op) => !seen.has(op.operationId));
  if (missing.length > 0)
    throw new Error(
      `operations without a request: ${missing.map((op) => op.operationId).join(', ')}`,
    );
  const variable = (name: string, value: string, secret: boolean) => ({
    uid: name,
    name,
    value,
    type: 'text',
    enabled: true,
    secret,
  });
  files.set(
    'environments/local.bru',
    filestore.stringifyEnvironment(
      {
        name: 'local',
        variables: [
          // `pnpm start` (PORT, default 8080) and `pnpm stack` serve the edge here.
          variable('baseUrl', 'http://127.0.0.1:8080', false),
          // Printed by `pnpm start` (or ADMIN_TOKEN); apps, gates: POST /admin/v1/apps, /gates.
          variable('adminToken', '', true),
          variable('apiKey', '', true),
          variable('gateToken', '', true),
          // A fan's access token from /oauth/token (commerce shopping).
          variable('fanToken', '', true),
        ],
      },
      { format: 'bru' },
    ),
  );
  return files;
}

/** Writes the collection into `out` (emptied first); the number of request files. */
export function writeCollection(out: string): number {
  const files = renderCollection();
  rmSync(out, { recursive: true, force: true });
  for (const [path, text] of files) {
    mkdirSync(join(out, path, '..'), { recursive: true });
    writeFileSync(join(out, path), text);
  }
  return [...files.keys()].filter((path) => path.endsWith('.bru') && !path.endsWith('folder.bru'))
    .length;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const outArg = args.indexOf('--out');
  const out = outArg >= 0 && args[outArg + 1] ? resolve(args[outArg + 1]!) : defaultOutput;
  writeCollection(out);
  console.log(
    `generate-bruno: wrote ${relative(process.cwd(), out) || '.'} (open the folder in Bruno; environment "local")`,
  );
}
