/** MoI in the renderer: its wizard in the five-step experiment flow and the run view (tables, Fig. 6, calls per method, per-query drill-down). */
import type { KindUi } from '../kindUi';
import MoiRunView from './MoiRunView.svelte';
import MoiWizard from './MoiWizard.svelte';

export const moiUi: KindUi<'moi'> = { kind: 'moi', label: 'MoI', Wizard: MoiWizard, RunView: MoiRunView };
