/**
 * Label accuracy as LaMP scores its classification tasks (reference note fair-rag.md §6): both sides
 * Python-`.strip()`ed, then an exact, case-sensitive string comparison — 1 if equal, else 0.
 * LaMP maps both strings to their index in the task's label list (unknown → −1) and compares indices;
 * with the gold always in the list that is the same as this string equality. Several references:
 * 1 if the prediction equals any of them.
 */
import { requireReferences } from './prfScore';
import { pyStrip } from './pythonWhitespace';

export function labelAccuracy(prediction: string, references: readonly string[]): number {
  requireReferences(references);
  const p = pyStrip(prediction);
  return references.some((r) => pyStrip(r) === p) ? 1 : 0;
}
