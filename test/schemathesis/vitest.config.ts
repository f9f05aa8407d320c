import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const reportDir = process.env.MARQUEE_TEST_REPORT_DIR;

/**
 * schemathesis: the public HTTP API of the embedded default against its OpenAPI document
 * (docs/api/openapi.json), fuzzed by schemathesis 4 (PyPI) with every check. Run from the test
 * package: `pnpm --filter @marquee/tests exec vitest run --config schemathesis/vitest.config.ts`.
 */
export default defineConfig({
  resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] },
  ssr: { resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] } },
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.schemathesis.test.ts'],
    // The fuzzing run itself: a few minutes on a 2-core runner (README).
    testTimeout: 900_000,
    // Creating the virtual environment downloads the wheels from PyPI the first time.
    hookTimeout: 600_000,
    fileParallelism: false,
    reporters: reportDir
      ? ['default', ['json', { outputFile: `${reportDir}/schemathesis.json` }]]
      : ['default'],
  },
});
