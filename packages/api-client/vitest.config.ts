import { marqueeVitestConfig } from '../../vitest.shared.ts';

export default marqueeVitestConfig();
