/**
 * The analysis view of each experiment kind: a component that takes a run id. Kinds without a view
 * here get the generic run page (status, stats, manifest).
 */
import type { Component } from 'svelte';
import FairRagRunView from './fair-rag/FairRagRunView.svelte';
import MoiRunView from './moi/MoiRunView.svelte';
import RichRagRunView from './richrag/RichRagRunView.svelte';

export const RUN_VIEWS: Record<string, Component<{ runId: number }>> = {
  'fair-rag': FairRagRunView,
  moi: MoiRunView,
  richrag: RichRagRunView,
};
