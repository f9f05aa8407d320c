import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const reportDir = process.env.MARQUEE_TEST_REPORT_DIR;

/** conformance: a 3P API implementation against the contract (partner-reference unless told otherwise). */
export default defineConfig({
  resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] },
  ssr: { resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] } },
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.conformance.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    sequence: { concurrent: false },
    reporters: reportDir
      ? ['default', ['json', { outputFile: `${reportDir}/conformance.json` }]]
      : ['default'],
  },
});
