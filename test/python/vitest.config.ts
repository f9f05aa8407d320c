import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const reportDir = process.env.MARQUEE_TEST_REPORT_DIR;

/**
 * python: the Python consumer of examples/python-consumer (confluent-kafka + protobuf from PyPI)
 * against the real Kafka. Run from the test package:
 * `pnpm --filter @marquee/tests exec vitest run --config python/vitest.config.ts`.
 */
export default defineConfig({
  resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] },
  ssr: { resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] } },
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.python.test.ts'],
    testTimeout: 120_000,
    // Creating the virtual environment downloads the wheels from PyPI the first time.
    hookTimeout: 600_000,
    fileParallelism: false,
    reporters: reportDir
      ? ['default', ['json', { outputFile: `${reportDir}/python-consumer.json` }]]
      : ['default'],
  },
});
