/**
 * What a Fair RAG run would refuse only after its run was written (issue 26), checked with the
 * references (ExperimentKind.checkContent, specReferences.ts): a prompt template that does not parse
 * (an unknown placeholder, an unterminated block) and a task no selected query has.
 */
import type { FairRagSpec } from '../../api/contract/fairRag';
import { parsePromptTemplate } from '../../core/prompts/promptTemplate';
import type { CollectionsRepo } from '../../store/collectionsRepo';
import type { ContentCheckDeps, KindSpecIssue } from '../registry';
import { selectQueries } from '../selectQueries';

export function fairRagSpecContent(spec: FairRagSpec, deps: ContentCheckDeps): KindSpecIssue[] {
  const issues: KindSpecIssue[] = [];
  if (typeof spec.promptTemplate === 'string') {
    try {
      parsePromptTemplate(spec.promptTemplate);
    } catch (err) {
      issues.push({ path: 'promptTemplate', message: err instanceof Error ? err.message : String(err) });
    }
  }
  const collection = deps.collections.byName(spec.collection);
  if (!Array.isArray(spec.tasks) || !collection) return issues;
  const queries = spec.queries === 'all' || Array.isArray(spec.queries) ? spec.queries : 'all';
  let rows: Array<{ task: string | null }>;
  try {
    rows = selectQueries(deps.collections as CollectionsRepo, collection, queries);
  } catch {
    return issues; // an unknown query id: checkSpecReferences names it
  }
  const known = new Set(rows.map((q) => q.task ?? ''));
  const list = [...known].filter((k) => k !== '').sort();
  spec.tasks.forEach((t, i) => {
    if (!known.has(t)) {
      issues.push({ path: `tasks[${i}]`, message: `no ${queries === 'all' ? 'query' : 'selected query'} of collection '${collection.name}' has task '${t}' (its tasks: ${list.length ? list.join(', ') : 'none'})` });
    }
  });
  return issues;
}
