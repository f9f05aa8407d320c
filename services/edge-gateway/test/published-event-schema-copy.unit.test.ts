import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The edge validates published events with a copy of publisher's schema (services share contracts,
// not code). If the copies drift, the edge would reject what publisher accepts, or the reverse.
const body = (path: string) => {
  const text = readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');
  return text.slice(text.indexOf('/** Schema annotation'));
};

describe('published event schema', () => {
  it("is the same in the edge as in publisher (below each file's header)", () => {
    const sut = body('../src/ports/http/publishing/published-event-schema.ts');
    expect(sut.length).toBeGreaterThan(1_000);
    expect(sut).toBe(body('../../publisher/src/domain/published-event-schema.ts'));
  });
});
