export {
  activeTelemetry,
  defaultInstrumentations,
  exportersRequested,
  mongoStatement,
  shutdownTelemetry,
  startTelemetry,
  type ExportersRequested,
  type StartTelemetryOptions,
} from './start-telemetry.js';
