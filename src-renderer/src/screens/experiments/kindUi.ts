/**
 * The types of a kind's UI (kinds.ts), in a module of their own so that a kind's folder can name
 * them without importing kinds.ts, which imports every kind's folder (no import cycle, issue 37).
 */
import type { Component } from 'svelte';
import type { ApiOutput, MetricsOf, RunKind } from '$contract';
import type { KindBlockers } from './designBlockers';

export type RunDetail = ApiOutput<'runs.get'>;

export interface RunViewProps<K extends RunKind> {
  run: RunDetail;
  metrics: MetricsOf<K>;
}

export interface WizardProps {
  onSaved: (id: number, message: string) => void;
  onCancel: () => void;
  /** The kind's own blocking rules (its KindUi `blockers`), handed to the wizard by the page that mounts it. */
  blockers?: KindBlockers | undefined;
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
  /** What the kind's run needs of the selected queries and the wizard's form, as wizard blockers (designBlockers.ts). */
  blockers?: KindBlockers;
}
