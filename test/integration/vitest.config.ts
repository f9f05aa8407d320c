import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const reportDir = process.env.MARQUEE_TEST_REPORT_DIR;

/**
 * cross-service: several services composed in this process (from their sources) on real Kafka and a
 * real Mongo-wire server, each on its own bus and database; the same globalSetup as the packages'
 * integration projects provides them (KAFKA_BROKERS and MONGO_URL, else testcontainers).
 */
export default defineConfig({
  resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] },
  ssr: { resolve: { conditions: ['@marquee/source', 'import', 'node', 'default'] } },
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.int.test.ts'],
    globalSetup: [
      fileURLToPath(
        new URL('../../packages/platform/src/testing/global-setup.ts', import.meta.url),
      ),
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    reporters: reportDir
      ? ['default', ['json', { outputFile: `${reportDir}/cross-service.json` }]]
      : ['default'],
  },
});
