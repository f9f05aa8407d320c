import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { hostedServices } from '../src/services.js';

// The Helm chart's calls are generated from the definitions' source (scripts/generate-service-calls.ts
// reads it with the TypeScript parser); here they are compared with the definitions as loaded, the
// `calls` this runner starts the services by, then the `callsLater` it does not wait for.
const chartCalls = fileURLToPath(
  new URL('../../../deploy/helm/marquee/files/calls.yaml', import.meta.url),
);

describe('the Helm chart calls', () => {
  it("are each service's ServiceDefinition calls, for every service", () => {
    const declared = parse(readFileSync(chartCalls, 'utf8')) as Record<string, string[]>;
    expect(
      Object.fromEntries(
        hostedServices.map(({ name, calls, callsLater = [] }) => [name, [...calls, ...callsLater]]),
      ),
    ).toEqual(declared);
    expect(declared['secure-entry']).toContain('cart');
    expect(declared['edge-gateway']).toContain('cart');
  });
});
