export {
  createLifecycle,
  type CreateLifecycleOptions,
  type Lifecycle,
  type StopResult,
  type StopStep,
} from './lifecycle.js';
export { runMain, type RunMainOptions } from './run-main.js';
export { pauseAfter, periodic, type Periodic, type PeriodicOptions } from './periodic.js';
