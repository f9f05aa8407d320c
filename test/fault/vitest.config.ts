import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const reportDir = process.env.MARQUEE_TEST_REPORT_DIR;

/**
 * fault: every service as its own process (built dist/), as in e2e, against a Kafka broker and a
 * Mongo-wire server of the tier's own (fault-infra.ts), which it stops, kills and restarts under a
 * steady publishing load. One file, one scenario; docs/reliability.md has the table it prints.
 */
export default defineConfig({
  resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] },
  ssr: { resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] } },
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.fault.test.ts'],
    // The whole scenario is one test: four faults one after the other, then the checks.
    testTimeout: 600_000,
    hookTimeout: 240_000,
    fileParallelism: false,
    reporters: reportDir
      ? ['default', ['json', { outputFile: `${reportDir}/fault.json` }]]
      : ['default'],
  },
});
