import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const globalSetup = fileURLToPath(
  new URL('./packages/platform/src/testing/global-setup.ts', import.meta.url),
);

/**
 * The vitest config every package uses. Every test lives under the package's `test/` directory
 * (mirroring `src/` where it tests one module): a `unit` project (test/**\/*.unit.test.ts, memory
 * adapters, nothing outside the process) and an `integration` project (test/**\/*.int.test.ts)
 * whose globalSetup provides real Kafka and Mongo. The `@marquee/source` condition makes sibling
 * packages resolve to their TypeScript sources.
 */
export function marqueeVitestConfig(overrides: ViteUserConfig = {}): ViteUserConfig {
  // scripts/test.mjs asks for a JSON report per run so it can print one closing count.
  const reportDir = process.env.MARQUEE_TEST_REPORT_DIR;
  const reportName = `${process.cwd().split('/').slice(-2).join('-')}-${process.argv.includes('integration') ? 'integration' : 'unit'}`;
  const reporters = reportDir
    ? ['default', ['json', { outputFile: `${reportDir}/${reportName}.json` }]]
    : ['default'];
  return defineConfig({
    resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] },
    ssr: { resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] } },
    ...overrides,
    test: {
      reporters: reporters as never,
      projects: [
        {
          extends: true,
          test: {
            name: 'unit',
            include: ['test/**/*.unit.test.ts'],
            testTimeout: 15_000,
          },
        },
        {
          extends: true,
          test: {
            name: 'integration',
            include: ['test/**/*.int.test.ts'],
            globalSetup: [globalSetup],
            testTimeout: 60_000,
            hookTimeout: 120_000,
            fileParallelism: false,
          },
        },
      ],
      ...overrides.test,
    },
  });
}
