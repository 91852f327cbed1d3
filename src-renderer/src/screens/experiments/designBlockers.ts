/**
 * What keeps a wizard's design from running or from answering (issue 34 item 3), as a pure function of
 * the form and of the chosen collection: no selected query (a task or query id the collection does not
 * have, e.g. the demo's filter kept on another collection), a generator on a server that was never
 * verified to be running and serving its model, and the kind's own rules on the selected queries (its
 * KindUi `blockers` member, kindUi.ts: e.g. Fair RAG's usable utility labels and k below the candidates,
 * fair-rag/blockers.ts). Each blocker names its field, what is wrong and the fix; the wizard shows them,
 * counts them in its one status line, and does not start a run while one holds. A server the user
 * confirmed is no longer a blocker.
 */

/** One query of the chosen collection as the wizard sees it. */
export interface BlockerQuery {
  queryId: string;
  task: string | null;
  /** Its own candidate set's size (a LaMP profile); null when it has none. */
  candidateCount: number | null;
  /** Reference answers (Fair RAG scores the answer against them). */
  answers: number;
  /** Utility judgments of the query (labels.utility.summary n) and how many are useful (label > 0). */
  utilityJudged: number;
  utilityUseful: number;
}

/** A server as the wizard can tell whether it is known to work. */
export interface BlockerServer {
  name: string;
  model: string;
  /** Verified: asked at `remotes.add` (or Check again) and it served the model. */
  verified: boolean;
  /** Why it is not verified (e.g. added without asking it), when it is not. */
  note?: string | undefined;
}

/**
 * A kind's own blocking rules (its KindUi `blockers` member): what its run needs of the selected queries
 * (at least one is selected) and of the wizard's form.
 */
export type KindBlockers = (selected: readonly BlockerQuery[], form: Readonly<Record<string, unknown>>) => Blocker[];

export interface BlockerInput {
  /** The chosen collection's name, and its queries once loaded (undefined while loading: nothing is judged yet). */
  collection: string;
  queries: readonly BlockerQuery[] | undefined;
  queryMode: 'all' | 'tasks' | 'ids';
  tasks: readonly string[];
  queryIds: readonly string[];
  /** The kind's own rules (KindUi `blockers`), applied to the selected queries with the wizard's form. */
  kindBlockers?: KindBlockers | undefined;
  form?: Readonly<Record<string, unknown>> | undefined;
  /** Generator selections of the spec (`model:NAME`, `remote:NAME`), with the field each is in. */
  generators: readonly { path: string; value: string }[];
  servers: readonly BlockerServer[];
  /** Servers the user chose to use although they are not verified. */
  confirmedServers: readonly string[];
}

export interface Blocker {
  /** Stable kind of problem, for tests and styling: 'no-queries', 'unknown-tasks', 'unknown-query-ids', 'unverified-server', or a kind's own (e.g. 'k-covers-candidates'). */
  code: string;
  /** The spec field it belongs to (counted on that field's step). */
  path: string;
  message: string;
  fix: string;
  /** For an unverified server: its name (the wizard offers to confirm it). */
  server?: string;
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The queries the form selects (by task or id), before any kind's filter on what a query needs. */
export function selectedQueries<Q extends Pick<BlockerQuery, 'queryId' | 'task'>>(queries: readonly Q[], f: Pick<BlockerInput, 'queryMode' | 'tasks' | 'queryIds'>): Q[] {
  if (f.queryMode === 'tasks') return queries.filter((q) => f.tasks.includes(q.task ?? ''));
  if (f.queryMode === 'ids') return queries.filter((q) => f.queryIds.includes(q.queryId));
  return [...queries];
}

/**
 * The selection fitted to another collection (the demo's task filter must not stay on a collection
 * without that task): tasks and ids the collection does not have are dropped; when none is left the
 * selection is every query. Returns undefined when nothing changes.
 */
export function fitSelection(
  f: Pick<BlockerInput, 'queryMode' | 'tasks' | 'queryIds'>,
  queries: readonly Pick<BlockerQuery, 'queryId' | 'task'>[],
): { queryMode: BlockerInput['queryMode']; tasks: string[]; queryIds: string[] } | undefined {
  const tasks = new Set(queries.map((q) => q.task ?? ''));
  const ids = new Set(queries.map((q) => q.queryId));
  const keptTasks = f.tasks.filter((t) => tasks.has(t));
  const keptIds = f.queryIds.filter((q) => ids.has(q));
  if (keptTasks.length === f.tasks.length && keptIds.length === f.queryIds.length) return undefined;
  const mode = (f.queryMode === 'tasks' && keptTasks.length === 0) || (f.queryMode === 'ids' && keptIds.length === 0) ? 'all' : f.queryMode;
  return { queryMode: mode, tasks: keptTasks, queryIds: keptIds };
}

/** Whether a server is known to work, and why not. */
export function serverVerified(r: { identity?: { verified: boolean; note?: string | undefined } | undefined; capabilities?: unknown }): { verified: boolean; note?: string } {
  if (r.capabilities === null || r.capabilities === undefined) return { verified: false, note: r.identity?.note ?? 'it was never asked whether it is running and serves this model' };
  if (r.identity && !r.identity.verified) return { verified: false, ...(r.identity.note ? { note: r.identity.note } : {}) };
  return { verified: true };
}

/** The generator choices of a wizard form (`generator`, `agent`, `judgeGenerator`) that name a model or server, with their spec fields. */
export function formGenerators(form: Readonly<Record<string, unknown>>): { path: string; value: string }[] {
  const paths: Record<string, string> = { generator: 'generator', agent: 'agent', judgeGenerator: 'attribution' };
  return Object.entries(form)
    .filter((e): e is [string, string] => e[0] in paths && typeof e[1] === 'string' && /^(model|remote):/.test(e[1]))
    .map(([k, v]) => ({ path: paths[k]!, value: v }));
}

/** The server names a stored spec's generator selectors use (`{ remote: NAME }` anywhere in it). */
export function specServers(spec: unknown): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'remote' && typeof x === 'string') out.add(x);
        else walk(x);
      }
    }
  };
  walk(spec);
  return [...out];
}

export function designBlockers(input: BlockerInput): Blocker[] {
  const out: Blocker[] = [];
  const qs = input.queries;
  if (qs !== undefined && input.collection) {
    const tasks = [...new Set(qs.map((q) => q.task).filter((t): t is string => !!t))].sort();
    if (input.queryMode === 'tasks') {
      const missing = input.tasks.filter((t) => !qs.some((q) => (q.task ?? '') === t));
      if (missing.length)
        out.push({
          code: 'unknown-tasks',
          path: 'tasks',
          message: `Collection '${input.collection}' has no query of task ${missing.map((t) => `'${t}'`).join(', ')}.`,
          fix: tasks.length ? `choose among its tasks (${tasks.join(', ')}) or select every query` : 'its queries have no task: select every query',
        });
    }
    if (input.queryMode === 'ids') {
      const missing = input.queryIds.filter((id) => !qs.some((q) => q.queryId === id));
      if (missing.length)
        out.push({
          code: 'unknown-query-ids',
          path: 'queries',
          message: `Collection '${input.collection}' has no query ${missing.slice(0, 5).map((t) => `'${t}'`).join(', ')}${missing.length > 5 ? ` (and ${missing.length - 5} more)` : ''}.`,
          fix: 'pick queries from its list',
        });
    }
    const selected = selectedQueries(qs, input);
    if (selected.length === 0) {
      out.push({
        code: 'no-queries',
        path: input.queryMode === 'tasks' ? 'tasks' : 'queries',
        message: qs.length === 0 ? `Collection '${input.collection}' has no queries.` : `0 of the ${plural(qs.length, 'query', 'queries')} of '${input.collection}' are selected.`,
        fix: qs.length === 0 ? 'import queries into the collection, or choose another collection' : 'select every query, or tasks or queries this collection has',
      });
    } else if (input.kindBlockers) {
      out.push(...input.kindBlockers(selected, input.form ?? {}));
    }
  }
  const seen = new Set<string>();
  for (const g of input.generators) {
    if (!g.value.startsWith('remote:')) continue;
    const name = g.value.slice('remote:'.length);
    if (seen.has(name) || input.confirmedServers.includes(name)) continue;
    seen.add(name);
    const server = input.servers.find((s) => s.name === name);
    if (!server || server.verified) continue;
    out.push({
      code: 'unverified-server',
      path: g.path,
      server: name,
      message: `Server '${name}' (${server.model}) is unverified${server.note ? `: ${server.note}` : ''}; a run on a server that is not running fails only after its timeouts.`,
      fix: `check it again on the Models screen (Check again), choose another generator, or confirm below that '${name}' is running and serves ${server.model}`,
    });
  }
  return out;
}

/**
 * The wizard's one status line: checking, the spec's own problems, the design's blockers, or valid.
 * `shown` are the spec problems shown at their fields, `hidden` those not shown yet.
 */
export function wizardStatus(s: { checking: boolean; shown: number; hidden: number; blockers: readonly Blocker[] }): string {
  if (s.checking) return 'Checking…';
  const parts: string[] = [];
  if (s.shown) parts.push(plural(s.shown, 'problem'));
  if (s.blockers.length) parts.push(`cannot run: ${s.blockers.length === 1 ? s.blockers[0]!.message.replace(/\.$/, '') : plural(s.blockers.length, 'blocking problem')}`);
  if (parts.length) return parts.join('; ');
  return s.hidden ? 'Not complete yet' : 'Valid';
}
