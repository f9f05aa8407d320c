export {
  activeTelemetry,
  defaultInstrumentations,
  exportersRequested,
  shutdownTelemetry,
  startTelemetry,
  type ExportersRequested,
  type StartTelemetryOptions,
} from './start-telemetry.js';
