export {
  metrics,
  metricsText,
  SECONDS_BUCKETS,
  type HistogramOptions,
  type InstrumentOptions,
  type Metrics,
  type Observation,
  type Observe,
} from './registry.js';
export { startMetricsServer, type MetricsServer, type MetricsServerOptions } from './server.js';
