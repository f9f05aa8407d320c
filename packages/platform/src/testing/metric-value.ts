import { metricsText } from '../metrics/registry.js';

/**
 * The value of one series of this process's metrics as a scrape shows it, or undefined when it
 * has none: `await metricValue('marquee_dead_letters_total{topic="pings",group="g"}')`. The series
 * is written as in the text format, labels in the order they were recorded.
 */
export async function metricValue(series: string): Promise<number | undefined> {
  const line = (await metricsText()).split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1).split(' ')[0]);
}
