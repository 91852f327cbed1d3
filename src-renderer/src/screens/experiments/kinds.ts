/**
 * The experiment kinds the renderer knows, one folder each (fair-rag/, moi/, richrag/) exporting
 * its `KindUi`: the wizard that creates an experiment, optionally an editor for an existing spec
 * (else the spec text editor), and the run view. The Experiments screen offers every kind's wizard
 * and the run page mounts every kind's run view the same way: it loads the run and its metrics
 * (runs.get, runs.metrics) and hands them to the view. Adding a kind: its folder and a line here.
 */
import type { Component } from 'svelte';
import type { ApiOutput, MetricsOf, RunKind } from '$contract';
import { fairRagUi } from './fair-rag';
import { moiUi } from './moi';
import { richRagUi } from './richrag';

export type RunDetail = ApiOutput<'runs.get'>;

export interface RunViewProps<K extends RunKind> {
  run: RunDetail;
  metrics: MetricsOf<K>;
}

export interface WizardProps {
  onSaved: (id: number, message: string) => void;
  onCancel: () => void;
}

export interface EditorProps extends WizardProps {
  initial: Record<string, unknown>;
  experimentId: number;
  version: number;
}

export interface KindUi<K extends RunKind> {
  kind: K;
  /** Short name on buttons and links (the long title comes from experiments.kinds). */
  label: string;
  Wizard: Component<WizardProps>;
  Editor?: Component<EditorProps>;
  RunView: Component<RunViewProps<K>>;
  /** The kind's power simulation has a grid over samples N per arm (the main side's `power.samples`). */
  powerSamples?: true;
}

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
