import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { useEdge } from './edge-harness.js';

const startEdge = useEdge();

async function edge(): Promise<FastifyInstance> {
  return startEdge({});
}

/** `directive → sources` of a Content-Security-Policy header. */
function directives(header: unknown): Map<string, string[]> {
  expect(typeof header).toBe('string');
  const map = new Map<string, string[]>();
  for (const part of String(header).split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) map.set(name, sources);
  }
  return map;
}

/** The page, its scripts and style sheets, and the document it fetches. */
const DOCS_URLS = [
  '/docs',
  '/docs/',
  '/docs/static/swagger-ui-bundle.js',
  '/docs/static/swagger-ui-standalone-preset.js',
  '/docs/static/swagger-initializer.js',
  '/docs/static/swagger-ui.css',
  '/docs/json',
];

describe('/docs (the OpenAPI UI) is locked down', () => {
  it('answers a strict Content-Security-Policy: only its own origin, no inline or eval, no frames, no forms', async () => {
    const app = await edge();
    for (const url of DOCS_URLS) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      const csp = directives(response.headers['content-security-policy']);
      expect(Object.fromEntries(csp), url).toEqual({
        'default-src': ["'none'"],
        'script-src': ["'self'"],
        'style-src': ["'self'"],
        'img-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'base-uri': ["'none'"],
        'form-action': ["'none'"],
        'frame-ancestors': ["'none'"],
      });
    }
    // Scoped to the UI: other routes keep their own headers.
    const document = await app.inject({ url: '/openapi.json' });
    expect(document.statusCode).toBe(200);
    expect(document.headers['content-security-policy']).toBeUndefined();
  });

  it('cannot be framed, sniffed or leak its address, and sets no cookie', async () => {
    const app = await edge();
    for (const url of DOCS_URLS) {
      const response = await app.inject({ url });
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['referrer-policy'], url).toBe('no-referrer');
      expect(response.headers['cross-origin-opener-policy'], url).toBe('same-origin');
      expect(response.headers['set-cookie'], url).toBeUndefined();
    }
  });

  it('serves a page the policy allows as it is: external scripts and style sheets of /docs only, no inline code', async () => {
    const app = await edge();
    const html = (await app.inject({ url: '/docs/' })).body;
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\.\/static\/[\w.-]+\.js"/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\son\w+\s*=/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
    for (const [, target] of html.matchAll(/\b(?:src|href)="([^"]*)"/gi)) {
      expect(target).toMatch(/^\.\/static\//);
    }
    // Without the standalone top bar: its logo carries an inline style element the policy refuses.
    const initializer = (await app.inject({ url: '/docs/static/swagger-initializer.js' })).body;
    expect(initializer).toMatch(/"layout":\s*"BaseLayout"/);
  });
});
