import type {
  Attributes,
  Counter,
  Histogram,
  ObservableGauge,
  ObservableResult,
} from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

/**
 * The process's metrics: one OpenTelemetry MeterProvider read by a Prometheus exporter, which
 * renders the text format when the metrics server (server.ts) is scraped. Nothing is exported
 * anywhere else, and nothing is collected between scrapes beyond the instruments' own sums.
 *
 * Names are given in their Prometheus form (`http_server_request_duration_seconds`): the exporter
 * adds `_total` to counters and nothing else, so the unit suffix is part of the name here.
 * Attribute keys keep their OpenTelemetry spelling (`http.route`) and come out as labels with
 * underscores (`http_route`).
 *
 * A process-wide registry, not one per service: the embedded default runs every service in one
 * process and serves one `/metrics`; an instrument asked for twice under one name is the same
 * instrument, so two services that count the same thing add to one series (told apart by their
 * attributes, e.g. `service`).
 */
interface Registry {
  exporter: PrometheusExporter;
  provider: MeterProvider;
  counters: Map<string, Counter>;
  histograms: Map<string, Histogram>;
  gauges: Map<string, ObservableGauge>;
}

let registry: Registry | undefined;

function current(): Registry {
  if (registry) return registry;
  const exporter = new PrometheusExporter({
    // Served by the platform's own server (server.ts), which owns its port and its errors.
    preventServerStart: true,
    // Every series would otherwise carry otel_scope_* labels naming the meter; one meter here.
    withoutScopeInfo: true,
    withoutTargetInfo: true,
  });
  const provider = new MeterProvider({ readers: [exporter] });
  registry = { exporter, provider, counters: new Map(), histograms: new Map(), gauges: new Map() };
  return registry;
}

const meter = () => current().provider.getMeter('marquee');

/** The exporter, for the metrics server. */
export function prometheusExporter(): PrometheusExporter {
  return current().exporter;
}

/**
 * The process's metrics in the Prometheus text format, as a scrape sees them, without a server
 * (tests, tools).
 */
export async function metricsText(): Promise<string> {
  const { resourceMetrics } = await current().exporter.collect();
  return new PrometheusSerializer(undefined, false, undefined, true, true).serialize(
    resourceMetrics,
  );
}

export interface InstrumentOptions {
  /** The `# HELP` line. */
  description: string;
  /** UCUM unit (`s`, `By`, `1`); the name carries it too (`_seconds`, `_bytes`). */
  unit?: string;
}

export interface HistogramOptions extends InstrumentOptions {
  /** Bucket upper bounds; default: latency buckets in seconds from 5 ms to 10 s. */
  buckets?: readonly number[];
}

/** Latency buckets in seconds, as the OpenTelemetry HTTP and RPC conventions advise. */
export const SECONDS_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/** One value of an observed gauge; a callback may report several, told apart by attributes. */
export interface Observation {
  value: number;
  attributes?: Attributes;
}

export type Observe = () =>
  number | readonly Observation[] | Promise<number | readonly Observation[]>;

/**
 * The platform's metrics API, for counters a service keeps itself:
 *
 * ```ts
 * const reserves = metrics.counter('marquee_reserves', { description: 'Reserves by outcome' });
 * reserves.add(1, { outcome: 'held' });          // marquee_reserves_total{outcome="held"}
 * ```
 *
 * Attribute values must come from a small fixed set (an outcome, a partner id, a route
 * template): every distinct combination is a series Prometheus keeps.
 */
export const metrics = {
  /** A monotonic counter; Prometheus shows it with `_total` appended. */
  counter(name: string, options: InstrumentOptions): Counter {
    const { counters } = current();
    let counter = counters.get(name);
    if (!counter) {
      counter = meter().createCounter(name, options);
      counters.set(name, counter);
    }
    return counter;
  },

  /** A histogram (durations, sizes). */
  histogram(name: string, options: HistogramOptions): Histogram {
    const { histograms } = current();
    let histogram = histograms.get(name);
    if (!histogram) {
      histogram = meter().createHistogram(name, {
        description: options.description,
        ...(options.unit === undefined ? {} : { unit: options.unit }),
        advice: { explicitBucketBoundaries: [...(options.buckets ?? SECONDS_BUCKETS)] },
      });
      histograms.set(name, histogram);
    }
    return histogram;
  },

  /**
   * A gauge read at each scrape: `observe` answers the value now (a backlog, an age, a lag), once
   * or per attribute set. Returns the function that stops observing (a stopping service calls it,
   * so that the scrape no longer runs its callback). The SDK keeps reporting the last value of a
   * series it has seen (its cumulative state, for gauges too), so a stopped gauge shows its last
   * value until the process ends. A series (attribute set) that `observe` stops answering reads 0
   * from then on: the gauge reports it 0 once, rather than leaving the SDK to show its old value
   * for good (an event's queue that closed, a lease that moved to another replica). An `observe`
   * that throws or rejects reports nothing new for that scrape.
   */
  gauge(name: string, options: InstrumentOptions, observe: Observe): () => void {
    const { gauges } = current();
    let gauge = gauges.get(name);
    if (!gauge) {
      gauge = meter().createObservableGauge(name, options);
      gauges.set(name, gauge);
    }
    /** The attribute sets the last answer reported, by a key of their sorted entries. */
    let reported = new Map<string, Attributes>();
    const callback = async (result: ObservableResult) => {
      let observed: number | readonly Observation[];
      try {
        observed = await observe();
      } catch {
        return;
      }
      if (typeof observed === 'number') {
        result.observe(observed);
        return;
      }
      const now = new Map<string, Attributes>();
      for (const { value, attributes = {} } of observed) {
        result.observe(value, attributes);
        now.set(JSON.stringify(Object.entries(attributes).sort()), attributes);
      }
      for (const [key, attributes] of reported) if (!now.has(key)) result.observe(0, attributes);
      reported = now;
    };
    gauge.addCallback(callback);
    const observed = gauge;
    return () => observed.removeCallback(callback);
  },
};

export type Metrics = typeof metrics;
