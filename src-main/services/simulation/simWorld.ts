/**
 * Builds what a simulated reader knows (engine/sim/world.ts) from a stored collection and the
 * profile's utility rule: documents, queries (answers, label set, sub-aspects, candidates) and the
 * planted utility u(q, d) of every pair (engine/sim/profile.ts).
 */
import type { Database } from 'better-sqlite3';
import { DataError } from '../../core/errors';
import type { SimProfile } from '../../engine/sim/profile';
import { normalise } from '../../engine/sim/text';
import type { SimDoc, SimQuery, SimWorld } from '../../engine/sim/world';
import { CollectionsRepo } from '../../store/collectionsRepo';

const ALL = 1_000_000_000;

export function buildSimWorld(db: Database, profile: SimProfile): SimWorld {
  const repo = new CollectionsRepo(db);
  const collection = repo.byName(profile.collection);
  if (!collection) throw new DataError(`the simulated reader knows the collection '${profile.collection}', which is not in this workspace`, { field: 'profile.collection' });
  const docs: SimDoc[] = repo.listDocuments(collection.id, { limit: ALL }).items.map((d) => ({ id: d.docId, title: d.title, text: d.text }));
  const judgments = db.prepare(`SELECT query_id AS q, doc_id AS d, kind, label FROM judgments WHERE collection_id = ?`).all(collection.id) as { q: string; d: string; kind: string; label: number }[];
  const utilityLabels = new Map<string, Map<string, number>>();
  const relevance = new Map<string, Map<string, number>>();
  for (const j of judgments) {
    const target = j.kind === 'utility' ? utilityLabels : relevance;
    let m = target.get(j.q);
    if (!m) target.set(j.q, (m = new Map()));
    m.set(j.d, j.label);
  }
  const queries: SimQuery[] = repo.listQueries(collection.id, { limit: ALL }).items.map((q) => {
    const utility = new Map<string, number>();
    if (profile.utility === 'answer-in-document') {
      const answers = q.answers.map(normalise).filter((a) => a.length > 0);
      const shown = q.candidates ?? docs.map((d) => d.id);
      const byId = new Map(docs.map((d) => [d.id, d]));
      for (const id of shown) {
        const d = byId.get(id);
        if (d && answers.some((a) => normalise(`${d.title} ${d.text}`).includes(a))) utility.set(id, 1);
      }
    } else {
      const rel = relevance.get(q.queryId);
      const maxGrade = rel ? Math.max(0, ...rel.values()) : 0;
      if (rel && maxGrade > 0) for (const [d, g] of rel) utility.set(d, Math.max(0, g) / maxGrade);
      for (const [d, l] of utilityLabels.get(q.queryId) ?? []) utility.set(d, Math.min(1, Math.max(0, l)));
    }
    for (const [d, u] of Object.entries(profile.utilities?.[q.queryId] ?? {})) utility.set(d, u);
    const labels = Array.isArray(q.attrs.labels) && q.attrs.labels.every((x) => typeof x === 'string') ? (q.attrs.labels as string[]) : null;
    return { id: q.queryId, text: q.text, task: q.task, answers: q.answers, labels, subaspects: q.subaspects ?? [], candidates: q.candidates, utility };
  });
  return { collection: collection.name, contentHash: collection.contentHash, docs, queries };
}
