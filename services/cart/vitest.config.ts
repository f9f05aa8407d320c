import { marqueeVitestConfig } from '../../vitest.shared.ts';

// cart's domain and event tests still sit next to their code (src/**/*.test.ts); every other
// package keeps its tests under test/ (vitest.shared.ts).
export default marqueeVitestConfig({}, { extraUnitTests: ['src/**/*.test.ts'] });
