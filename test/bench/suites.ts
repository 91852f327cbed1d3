/** The benchmark suites `npm run bench` runs, in order. */
import { engineBench } from './engine.bench';
import type { BenchSuite } from './harness';
import { metricsBench } from './metrics.bench';

export const suites: Record<string, BenchSuite> = {
  engine: engineBench,
  metrics: metricsBench,
  retrieval: (ctx) => import('./retrieval.bench').then((m) => m.retrievalBench(ctx)),
  ui: (ctx) => import('./ui.bench').then((m) => m.uiBench(ctx)),
  fairrag: (ctx) => import('./fairrag.bench').then((m) => m.fairragBench(ctx)),
  sampler: (ctx) => import('./sampler.bench').then((m) => m.samplerBench(ctx)),
  startup: (ctx) => import('./startup.bench').then((m) => m.startupBench(ctx)),
  scoring: (ctx) => import('./scoring.bench').then((m) => m.scoringBench(ctx)),
  importlock: (ctx) => import('./importLock.bench').then((m) => m.importLockBench(ctx)),
  pools: (ctx) => import('./pools.bench').then((m) => m.poolsBench(ctx)),
  queue: (ctx) => import('./queue.bench').then((m) => m.queueBench(ctx)),
  evalfiles: (ctx) => import('./evalFiles.bench').then((m) => m.evalFilesBench(ctx)),
  importmemory: (ctx) => import('./importMemory.bench').then((m) => m.importMemoryBench(ctx)),
  threads: (ctx) => import('./threads.bench').then((m) => m.threadsBench(ctx)),
  uistall: (ctx) => import('./uiStall.bench').then((m) => m.uiStallBench(ctx)),
  runoverhead: (ctx) => import('./runOverhead.bench').then((m) => m.runOverheadBench(ctx)),
};
