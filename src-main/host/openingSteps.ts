/**
 * The steps of opening a workspace behind a first screen (issue 25 item 2), shared by browser mode
 * (server/openingBrowserMode.ts) and the desktop shell (app/shellStartup.ts): start the services
 * host, which opens the workspace (quick_check, migrations), then set up the demo when asked, each
 * step named for `app.startup`.
 */
import type { OpeningContext } from './openingHost';
import type { ServiceHost } from './serviceHost';

export interface OpeningSteps {
  /** Start the services host on the workspace (it opens it). */
  start: () => Promise<ServiceHost>;
  /** Set up the demo (tiny model, collection, conversations) before API calls are answered. */
  demo: boolean;
  /** The demo set-up's messages. */
  onDemoLog?: (message: string) => void;
}

export async function openBehindFirstScreen(ctx: OpeningContext, steps: OpeningSteps): Promise<void> {
  ctx.step('opening the workspace (integrity check, migrations)');
  const started = await steps.start();
  ctx.started(started);
  if (steps.demo) {
    ctx.step('setting up the demo');
    await started.ensureDemo((message) => {
      ctx.step(`setting up the demo: ${message}`);
      steps.onDemoLog?.(message);
    });
  }
}
