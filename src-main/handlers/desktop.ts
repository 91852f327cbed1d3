import type { Handlers } from '../api/router';
import type { AppServices } from '../services/appServices';
import { demoSpecs, diagnostics } from '../services/desktopService';

/** Issue 17: the demo specs offered on the Experiments screen, and Settings' diagnostics. */
export function desktopHandlers(s: AppServices): Pick<Handlers, 'experiments.demoSpecs' | 'app.diagnostics'> {
  return {
    'experiments.demoSpecs': () => demoSpecs(),
    'app.diagnostics': () => diagnostics(s, s.log),
  };
}
