/**
 * The state every experiment wizard shares, once: what it offers to choose from (collections,
 * models, servers; the chosen collection's queries, its details and retrieval runs), live
 * validation of the spec by the service (experiments.validateSpec, 250 ms after the last change:
 * the problems at their fields and the spec with the defaults filled in), which problems show
 * (FieldReveal), and for the MoI and RichRAG wizards the form itself with the demo's prefill. Construct these in a
 * component's script: they run effects for as long as the component lives.
 */
import { untrack } from 'svelte';
import type { ApiOutput } from '$contract';
import { api } from '../../api/client';
import { attempt, showError } from '../../state/errors.svelte';
import { changedPaths, pathPrefixes } from './specPaths';
import { fitSelection, serverVerified, type BlockerQuery, type BlockerServer } from './designBlockers';

export type QuerySummary = ApiOutput<'queries.list'>['items'][number];

/** A spec problem: its field path (`retrievers[0].params.k1`) and the service's message. */
export interface Issue {
  path: string;
  message: string;
}

const issueKey = (i: Issue): string => `${i.path}\n${i.message}`;

/** aria-describedby id of a field's issue line. */
export const issueId = (path: string): string => `issue-${path.replace(/[^A-Za-z0-9_-]+/g, '-')}`;

/** Whether an issue at `issuePath` belongs to the field at `path` (the field itself or inside it). */
export function pathWithin(issuePath: string, path: string): boolean {
  return issuePath === path || issuePath.startsWith(`${path}.`) || issuePath.startsWith(`${path}[`);
}

/** The collection's queries, all pages of queries.list. */
async function loadQueries(collectionId: number): Promise<QuerySummary[]> {
  const queries: QuerySummary[] = [];
  for (let offset = 0; offset < 20_000; offset += 500) {
    const page = await attempt('Could not list the queries', () => api.call('queries.list', { collectionId, offset, limit: 500 }));
    if (!page) break;
    queries.push(...page.items);
    if (queries.length >= page.total || page.items.length === 0) break;
  }
  return queries;
}

/** What a wizard offers: loaded once, and again for the collection whenever its name changes. */
export class WizardChoices {
  collections = $state<ApiOutput<'collections.list'>>([]);
  models = $state<ApiOutput<'models.list'>>([]);
  remotes = $state<ApiOutput<'remotes.list'>>([]);
  /** The chosen collection, its queries and its retrieval runs. */
  collection = $state<ApiOutput<'collections.get'> | undefined>();
  queries = $state<QuerySummary[]>([]);
  runs = $state<ApiOutput<'retrieval.runs.list'>>([]);
  /** The chosen collection's utility labels per query (what Fair RAG reads; relevance judgments do not count). */
  utility = $state<ApiOutput<'labels.utility.summary'> | undefined>();

  /** `collectionName` is read in an effect; `onLoaded` may fill in the form's defaults from the lists. */
  constructor(collectionName: () => string, onLoaded?: (choices: WizardChoices) => void) {
    $effect(() => {
      void (async () => {
        const [collections, models, remotes] = await Promise.all([
          attempt('Could not list the collections', () => api.call('collections.list', {})),
          attempt('Could not list the models', () => api.call('models.list', {})),
          attempt('Could not list the servers', () => api.call('remotes.list', {})),
        ]);
        this.collections = collections ?? [];
        this.models = models ?? [];
        this.remotes = remotes ?? [];
        onLoaded?.(this);
      })();
    });
    $effect(() => {
      const id = this.collections.find((c) => c.name === collectionName())?.id;
      if (id === undefined) {
        this.collection = undefined;
        this.queries = [];
        this.runs = [];
        this.utility = undefined;
        return;
      }
      let stale = false;
      void (async () => {
        const [queries, detail, runs, utility] = await Promise.all([
          loadQueries(id),
          attempt('Could not open the collection', () => api.call('collections.get', { id })),
          attempt('Could not list the retrieval runs', () => api.call('retrieval.runs.list', { collectionId: id })),
          api.call('labels.utility.summary', { collectionId: id, minUseful: 0 }).catch(() => undefined),
        ]);
        if (stale) return;
        this.collection = detail;
        this.queries = queries;
        this.runs = runs ?? [];
        this.utility = utility;
      })();
      return () => (stale = true);
    });
  }

  /** The collection named `preferred` when there is one, else the first ('' when there is none). */
  defaultCollection(preferred?: string): string {
    return (this.collections.find((c) => c.name === preferred) ?? this.collections[0])?.name ?? '';
  }

  /**
   * The generator a new experiment starts with (issue 26 item 1): the simulated reader of `collection` when
   * the library has one (planted truth, instant: the demo runs end to end without a language model), else the
   * library model named `preferred` when ready, else the first ready one, else the first server ('' when none).
   */
  defaultGenerator(preferred?: string, collection?: string): string {
    const ready = this.models.filter((m) => m.status === 'ready');
    const sim = collection ? ready.find((m) => m.kind === 'sim' && (m.metadata.profile as { collection?: unknown } | undefined)?.collection === collection) : undefined;
    const model = sim ?? ready.find((m) => m.name === preferred) ?? ready[0];
    return model ? `model:${model.name}` : this.remotes[0] ? `remote:${this.remotes[0].name}` : '';
  }

  /** The chosen collection's queries with their utility labels, once loaded for `name` (undefined before). */
  blockerQueries(name: string): BlockerQuery[] | undefined {
    if (!this.collection || this.collection.name !== name) return undefined;
    const labels: Record<string, { n: number; useful: number }> = {};
    for (const u of this.utility?.queries ?? []) labels[u.queryId] = u;
    return this.queries.map((q) => ({
      queryId: q.queryId,
      task: q.task,
      candidateCount: q.candidateCount,
      answers: q.answers.length,
      utilityJudged: labels[q.queryId]?.n ?? 0,
      utilityUseful: labels[q.queryId]?.useful ?? 0,
    }));
  }

  /** Every server with whether it is known to be running and serving its model. */
  get servers(): BlockerServer[] {
    return this.remotes.map((r) => ({ name: r.name, model: r.model, ...serverVerified(r) }));
  }

  /** The tasks of the collection's queries with their counts. */
  get tasks(): { task: string; count: number }[] {
    const by: Record<string, number> = {};
    for (const q of this.queries) if (q.task) by[q.task] = (by[q.task] ?? 0) + 1;
    return Object.entries(by).map(([task, count]) => ({ task, count }));
  }
}

/** The service's verdict on a spec as it changes: its problems, or the spec with the defaults filled in. */
export class LiveValidation {
  issues = $state<Issue[]>([]);
  validSpec = $state<Record<string, unknown> | null>(null);
  checking = $state(false);
  /** The spec (JSON) the issues are of: while the user types, the spec is newer. */
  checked = $state<string | undefined>();
  #waiting: (() => void)[] = [];

  constructor(spec: () => Record<string, unknown>) {
    const json = $derived(JSON.stringify(spec()));
    $effect(() => {
      const text = json;
      const body = JSON.parse(text) as Record<string, unknown>;
      let stale = false;
      this.checking = true;
      const timer = setTimeout(async () => {
        try {
          const v = await api.call('experiments.validateSpec', { spec: body });
          if (stale) return;
          this.issues = v.issues;
          this.validSpec = v.ok ? v.spec : null;
          this.checked = text;
        } catch (err) {
          if (!stale) showError(err, 'Could not validate the spec');
        } finally {
          if (!stale) {
            this.checking = false;
            for (const resolve of this.#waiting.splice(0)) resolve();
          }
        }
      }, 250);
      return () => {
        stale = true;
        clearTimeout(timer);
      };
    });
  }

  /** A problem the service reported on saving (e.g. a taken name), shown at its field like the others. */
  add(issue: Issue): void {
    this.issues = [...this.issues, issue];
  }

  /** Resolves once the service has checked the latest spec (at once when no check is pending). */
  settled(): Promise<void> {
    return this.checking ? new Promise((resolve) => this.#waiting.push(resolve)) : Promise.resolve();
  }
}

/**
 * Which problems a wizard shows at their fields (issue 26 item 2): a problem of the fresh form (the
 * empty name's "must not be empty") appears once its field was touched — its value changed, or the
 * user left it — or Next or Create was pressed, never before anything was typed. A problem that an
 * edit brings (k = 0, or a window no longer larger than the new k) shows at once, wherever it is. A
 * change is found by comparing the spec before and after the user's input event (values the wizard
 * fills in itself, like the default collection, do not count); leaving a field counts the fields its
 * `aria-describedby` issue ids name.
 */
export class FieldReveal {
  /** Every problem shows (the review step was reached, or Create was pressed). */
  all = $state(false);
  /** Spec paths the user changed, or whose step's Next was pressed. */
  paths = $state<string[]>([]);
  /** Issue-line ids (issueId(path)) of the fields the user left. */
  ids = $state<string[]>([]);
  #before = '{}';
  #edited = false;
  /** The problems of the form before the user's first edit (path + message), hidden until touched. */
  #pristine = $state<string[]>([]);
  readonly #spec: () => Record<string, unknown>;
  readonly #validation: LiveValidation;

  constructor(spec: () => Record<string, unknown>, validation: LiveValidation) {
    this.#spec = spec;
    this.#validation = validation;
    // Effects run after the input event's handlers: in a handler, #before is the spec before that event.
    $effect(() => {
      this.#before = JSON.stringify(spec());
    });
    $effect(() => {
      const issues = validation.issues;
      if (this.#edited) return;
      untrack(() => {
        const add = issues.map(issueKey).filter((k) => !this.#pristine.includes(k));
        if (add.length) this.#pristine = [...this.#pristine, ...add];
      });
    });
  }

  /** For the form's `oninput` / `onchange`: the spec paths this event changed are touched. */
  readonly edited = (): void => {
    const now = JSON.stringify(this.#spec());
    if (now === this.#before) return;
    this.#edited = true;
    this.touch(changedPaths(JSON.parse(this.#before) as unknown, JSON.parse(now) as unknown));
    this.#before = now;
  };

  /** For the form's `onfocusout`: the field left is touched (through the issue ids it is described by). */
  readonly left = (event: FocusEvent): void => {
    const el = event.target as { getAttribute?: (n: string) => string | null } | null;
    const ids = (el?.getAttribute?.('aria-describedby') ?? '').split(/\s+/).filter((id) => id.startsWith('issue-') && !this.ids.includes(id));
    if (ids.length) this.ids = [...this.ids, ...ids];
  };

  touch(paths: readonly string[]): void {
    const add = paths.filter((p) => !this.paths.includes(p));
    if (add.length) this.paths = [...this.paths, ...add];
  }

  revealAll(): void {
    this.all = true;
  }

  shows(issue: Issue): boolean {
    if (this.all || !this.#pristine.includes(issueKey(issue))) return true;
    if (this.paths.some((p) => pathWithin(issue.path, p) || pathWithin(p, issue.path))) return true;
    return pathPrefixes(issue.path).some((p) => this.ids.includes(issueId(p)));
  }

  /**
   * The issues that still hold: not those of a field changed since the service checked the spec (a
   * "must not be empty" must not flash under a name being typed while its check is on the way).
   */
  current(issues: readonly Issue[]): Issue[] {
    const checked = this.#validation.checked;
    const now = JSON.stringify(this.#spec());
    if (checked === undefined || checked === now) return [...issues];
    const changed = changedPaths(JSON.parse(checked) as unknown, JSON.parse(now) as unknown);
    return issues.filter((i) => !changed.some((p) => pathWithin(i.path, p) || pathWithin(p, i.path)));
  }

  /** The issues to show at their fields: current, and touched (or revealed). */
  filter(issues: readonly Issue[]): Issue[] {
    return this.current(issues).filter((i) => this.shows(i));
  }
}

/** The fields every kind's form has: name, collection, query subset, generator. */
export interface BasicsForm {
  name: string;
  description: string;
  collection: string;
  queryMode: 'all' | 'tasks' | 'ids';
  tasks: string[];
  queryIds: string[];
  generator: string;
}

/** An empty basics form (the wizards fill the collection and the generator once the lists are loaded). */
export function emptyBasics(): BasicsForm {
  return { name: '', description: '', collection: '', queryMode: 'all', tasks: [], queryIds: [], generator: '' };
}

/** Drops the tasks and query ids the loaded collection does not have (every query when none is left). */
export function fitFormSelection(form: Pick<BasicsForm, 'queryMode' | 'tasks' | 'queryIds'>, queries: readonly QuerySummary[]): void {
  const fitted = fitSelection(form, queries);
  if (!fitted) return;
  form.queryMode = fitted.queryMode;
  form.tasks = fitted.tasks;
  form.queryIds = fitted.queryIds;
}

/** The demo the MoI and RichRAG wizards prefill: its collection, model and the multi-aspect questions. */
const DEMO = { collection: 'Fairground demo', model: 'fairground-tiny', task: 'multi-aspect' };

/** A MoI or RichRAG wizard: its form (prefilled from the demo when the workspace has it), choices, spec and validation. */
export class KindWizard<F extends BasicsForm> {
  form: F;
  readonly choices: WizardChoices;
  readonly spec: Record<string, unknown>;
  readonly validation: LiveValidation;

  constructor(initial: F, toSpec: (form: F) => Record<string, unknown>) {
    this.form = $state(initial);
    this.choices = new WizardChoices(
      () => this.form.collection,
      (c) => {
        if (!this.form.collection) this.form.collection = c.defaultCollection(DEMO.collection);
        if (!this.form.generator) this.form.generator = c.defaultGenerator(DEMO.model, this.form.collection);
      },
    );
    this.spec = $derived(toSpec(this.form));
    this.validation = new LiveValidation(() => this.spec);
    // The demo spec's subset: the multi-aspect questions, once the collection's queries show it has them.
    // On another collection the selection is fitted to its queries (the demo's filter must not stay).
    let prefilled = false;
    let fittedFor: string | undefined;
    $effect(() => {
      const loaded = this.choices.collection?.name;
      const queries = this.choices.queries;
      if (!loaded || loaded !== this.form.collection || !queries.length) return;
      untrack(() => {
        if (!prefilled) {
          prefilled = true;
          fittedFor = loaded;
          if (this.form.queryMode === 'all' && queries.some((q) => q.task === DEMO.task)) {
            this.form.queryMode = 'tasks';
            this.form.tasks = [DEMO.task];
          }
          return;
        }
        if (fittedFor === loaded) return;
        fittedFor = loaded;
        fitFormSelection(this.form, queries);
      });
    });
  }
}
