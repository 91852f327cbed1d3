/** RichRAG in the renderer: its wizard in the five-step experiment flow and the run view (Tables 1 and 3, judge, US³ data, per-query coverage). */
import type { KindUi } from '../kindUi';
import RichRagRunView from './RichRagRunView.svelte';
import RichRagWizard from './RichRagWizard.svelte';

export const richRagUi: KindUi<'richrag'> = { kind: 'richrag', label: 'RichRAG', Wizard: RichRagWizard, RunView: RichRagRunView };
