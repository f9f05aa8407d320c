import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const reportDir = process.env.MARQUEE_TEST_REPORT_DIR;

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.unit.test.ts'],
    testTimeout: 30_000,
    reporters: reportDir
      ? ['default', ['json', { outputFile: `${reportDir}/lint-rules.json` }]]
      : ['default'],
  },
});
