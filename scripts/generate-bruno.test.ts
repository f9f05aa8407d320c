import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentPathOf, writeCollection } from './generate-bruno.ts';

const require = createRequire(import.meta.url);
const { parseRequest } = require('@usebruno/filestore') as {
  parseRequest(
    text: string,
    options: { format: 'bru' },
  ): {
    name: string;
    request: {
      method: string;
      url: string;
      auth: { mode: string };
      params: { name: string; value: string; enabled: boolean; type: string }[];
      headers: { name: string; value: string; enabled: boolean }[];
    };
  };
};

interface Operation {
  operationId: string;
  method: string;
  path: string;
  tags: string[];
  security: string[];
}

/** Every operation of the committed document. */
function documentOperations(): Operation[] {
  const document = JSON.parse(
    readFileSync(new URL('../docs/api/openapi.json', import.meta.url), 'utf8'),
  ) as {
    paths: Record<
      string,
      Record<string, { operationId: string; tags?: string[]; security?: object[] }>
    >;
  };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map(([method, op]) => ({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        tags: op.tags ?? [],
        security: (op.security ?? []).flatMap((entry) => Object.keys(entry)),
      })),
  );
}

describe('the Bruno collection generated from docs/api/openapi.json', () => {
  let out: string;
  const requests = new Map<string, ReturnType<typeof parseRequest> & { folder: string }>();

  // The conversion takes seconds, more on a busy 2-core runner.
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'marquee-bruno-'));
    writeCollection(out);
    for (const folder of readdirSync(out, { withFileTypes: true })) {
      if (!folder.isDirectory() || folder.name === 'environments') continue;
      for (const file of readdirSync(join(out, folder.name))) {
        if (file === 'folder.bru') continue;
        const text = readFileSync(join(out, folder.name, file), 'utf8');
        requests.set(file.replace(/\.bru$/, ''), {
          ...parseRequest(text, { format: 'bru' }),
          folder: folder.name,
        });
      }
    }
  }, 120_000);

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('has one request per operationId, with its method and path, in the folder of its tag', () => {
    const operations = documentOperations();
    expect(operations.length).toBeGreaterThan(100);
    expect([...requests.keys()].sort()).toEqual(operations.map((op) => op.operationId).sort());
    for (const op of operations) {
      const request = requests.get(op.operationId)!;
      expect(request.request.method.toUpperCase(), op.operationId).toBe(op.method);
      expect(documentPathOf(request.request.url), op.operationId).toBe(op.path);
      expect(request.folder, op.operationId).toBe(op.tags[0]!.replace(/[^A-Za-z0-9_-]+/g, '_'));
    }
  });

  it("authenticates each request as its operation's security says, from environment variables", () => {
    for (const op of documentOperations()) {
      const { request } = requests.get(op.operationId)!;
      const text = JSON.stringify(request.auth);
      if (op.security.includes('adminToken'))
        expect(text, op.operationId).toContain('{{adminToken}}');
      else if (op.security.includes('gateToken'))
        expect(text, op.operationId).toContain('{{gateToken}}');
      else if (op.security.includes('apiKey')) expect(text, op.operationId).toContain('{{apiKey}}');
      else expect(request.auth.mode, op.operationId).toBe('none');
      // The key is sent once: no enabled credential query parameter beside the auth block.
      expect(
        request.params.filter((p) => p.enabled && ['apikey', 'api-key'].includes(p.name)),
        op.operationId,
      ).toEqual([]);
    }
  });

  it('has the local environment of `pnpm start`, its credentials as secrets', () => {
    const env = readFileSync(join(out, 'environments/local.bru'), 'utf8');
    expect(env).toContain('baseUrl: http://127.0.0.1:8080');
    for (const name of ['adminToken', 'apiKey', 'gateToken', 'fanToken'])
      expect(env).toContain(name);
    expect(JSON.parse(readFileSync(join(out, 'bruno.json'), 'utf8'))).toMatchObject({
      type: 'collection',
    });
  });
});
