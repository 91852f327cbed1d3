/**
 * The experiment kinds the renderer knows, one folder each (fair-rag/, moi/, richrag/) exporting
 * its `KindUi` (kindUi.ts): the wizard that creates an experiment, optionally an editor for an existing spec
 * (else the spec text editor), and the run view. The Experiments screen offers every kind's wizard
 * and the run page mounts every kind's run view the same way: it loads the run and its metrics
 * (runs.get, runs.metrics) and hands them to the view. Adding a kind: its folder and a line here.
 */
import type { Component } from 'svelte';
import type { RunKind } from '$contract';
import type { KindUi, RunViewProps } from './kindUi';
import { fairRagUi } from './fair-rag';
import { moiUi } from './moi';
import { richRagUi } from './richrag';

type AnyKindUi = { [K in RunKind]: KindUi<K> }[RunKind];

/** In the order the New experiment page offers them; the first is the default. */
export const KIND_UIS: readonly AnyKindUi[] = [fairRagUi, moiUi, richRagUi];

export function kindUi(kind: string): AnyKindUi | undefined {
  return KIND_UIS.find((k) => k.kind === kind);
}

/** A kind's run view as the run page mounts it (the page checked that the metrics are of this kind). */
export function runViewOf(ui: AnyKindUi): Component<RunViewProps<RunKind>> {
  return ui.RunView as Component<RunViewProps<RunKind>>;
}

/** #/experiments/new for the first kind, #/experiments/new/<kind> for the others. */
export function wizardHref(kind: string): string {
  return kind === KIND_UIS[0]!.kind ? '#/experiments/new' : `#/experiments/new/${kind}`;
}
