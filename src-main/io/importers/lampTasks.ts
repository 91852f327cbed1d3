/**
 * The seven LaMP tasks (Salemi et al.; fair-rag.md §6) with their metrics:
 * - `metric`: what Fair RAG's expected utility uses (EU μ), in the names of core/text/textMetrics.ts;
 * - `official`: LaMP's reported metrics (LaMP-1/2 accuracy and F1 (macro over the labels),
 *   LaMP-3 MAE and RMSE, LaMP-4..7 ROUGE-1 and ROUGE-L);
 * - `labelMetric`: the μ of Algorithm 1 (utility labels). LaMP-3 labels with exact-match accuracy
 *   but evaluates with MAE (fair-rag.md §6 and §9 item 6).
 * `prompt` recognises a task from the start of its question when no outputs file names it.
 */
export interface LampTask {
  number: number;
  name: string;
  metric: string;
  official: readonly string[];
  labelMetric: string;
  prompt: RegExp;
}

export const LAMP_TASKS: readonly LampTask[] = [
  { number: 1, name: 'citation identification', metric: 'accuracy', official: ['accuracy', 'f1'], labelMetric: 'accuracy', prompt: /^For an author who has written the paper with the title/ },
  { number: 2, name: 'movie tagging', metric: 'accuracy', official: ['accuracy', 'f1'], labelMetric: 'accuracy', prompt: /^Which (tag does this movie|category does this article) relate to/ },
  { number: 3, name: 'product rating', metric: 'mae', official: ['mae', 'rmse'], labelMetric: 'accuracy', prompt: /^What is the score of the following review/ },
  { number: 4, name: 'news headline generation', metric: 'rougeL', official: ['rouge1', 'rougeL'], labelMetric: 'rougeL', prompt: /^Generate a headline for the following article/ },
  { number: 5, name: 'scholarly title generation', metric: 'rougeL', official: ['rouge1', 'rougeL'], labelMetric: 'rougeL', prompt: /^Generate a title for the following abstract of a paper/ },
  { number: 6, name: 'email subject generation', metric: 'rougeL', official: ['rouge1', 'rougeL'], labelMetric: 'rougeL', prompt: /^Generate a subject for the following email/ },
  { number: 7, name: 'tweet paraphrasing', metric: 'rougeL', official: ['rouge1', 'rougeL'], labelMetric: 'rougeL', prompt: /^Paraphrase the following tweet/ },
];

/** `LaMP_2`, `LaMP-2`, `lamp2`, `2` → task 2; undefined when it names no LaMP task. */
export function lampTaskByName(name: string): LampTask | undefined {
  const m = /^\s*(?:lamp[\s_-]*)?([1-7])\s*$/i.exec(name);
  return m ? LAMP_TASKS[Number(m[1]) - 1] : undefined;
}

export function lampTaskByPrompt(input: string): LampTask | undefined {
  return LAMP_TASKS.find((t) => t.prompt.test(input.trimStart()));
}

export function lampTaskLabel(task: LampTask): string {
  return `LaMP-${task.number}`;
}
