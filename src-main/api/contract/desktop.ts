/**
 * Desktop-experience methods (issue 17): the bundled demo specs the Experiments screen offers on
 * first start, and diagnostics for Settings.
 */
import { z } from 'zod';
import { Empty, lazyMethods, method } from './define';

export const DemoSpec = z.object({
  /** File name under resources/demo/experiments/. */
  file: z.string(),
  kind: z.string(),
  name: z.string(),
  description: z.string(),
  spec: z.record(z.string(), z.unknown()),
});

export const desktopContract = lazyMethods(() => ({
  'experiments.demoSpecs': method(Empty, z.array(DemoSpec), 'The demo experiment specs shipped with Fairground (resources/demo/experiments).'),
  'app.diagnostics': method(
    Empty,
    z.object({ text: z.string(), logFile: z.string().nullable(), logFolder: z.string().nullable() }),
    'A plain-text diagnostics report (versions, platform, workspace, recent jobs and log lines) and where the log file is.',
  ),
}));
