/** Fair RAG in the renderer: its wizard in the five-step experiment flow (which also edits a spec) and the analysis views of a run. */
import type { KindUi } from '../kindUi';
import FairRagRunView from './FairRagRunView.svelte';
import FairRagWizard from './wizard/FairRagWizard.svelte';
import { fairRagBlockers } from './blockers';

export const fairRagUi: KindUi<'fair-rag'> = { kind: 'fair-rag', label: 'Fair RAG', Wizard: FairRagWizard, Editor: FairRagWizard, RunView: FairRagRunView, powerSamples: true, blockers: fairRagBlockers };
