/** The benchmark suites `npm run bench` runs, in order. */
import { engineBench } from './engine.bench';
import type { BenchSuite } from './harness';
import { metricsBench } from './metrics.bench';

export const suites: Record<string, BenchSuite> = {
  engine: engineBench,
  metrics: metricsBench,
};
