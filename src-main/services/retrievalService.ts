/**
 * Retrieval use cases over one workspace: corpus search, dense embedding sets (built as jobs),
 * retrieval runs (BM25, dense, RRF; run as jobs, stored atomically) and their TREC export.
 * Orchestration only: the math is in core/retrieval, the indexes in retrieval/, the SQL in
 * store/retrievalRepo and the index modules.
 */
import type { Database } from 'better-sqlite3';
import type { z } from 'zod';
import type { Job } from '../api/contract/jobs';
import type { EmbeddingSet, RunQueryHits, RunSpec, RunSummary } from '../api/contract/retrieval';
import { ApiFailure } from '../api/router';
import { ENGLISH_STOPWORDS, FAIR_RAG_TOKENIZER, type TokenizerOptions } from '../core/retrieval/tokenizer';
import { porterStem } from '../core/text/porterStemmer';
import type { VectorMetric } from '../core/retrieval/exactKnn';
import { LocalEngine } from '../engine/local/localEngine';
import type { Engine } from '../engine/types';
import { formatRun, type IrMetadata } from '../io/trec';
import { DenseIndex } from '../retrieval/dense/denseIndex';
import { documentText, embedDocuments } from '../retrieval/dense/embedDocuments';
import { fitTexts, fitWarnings, OVERLONG_DEFAULT, type FitRecord, type Overlong } from '../retrieval/dense/fitTexts';
import { countVectors, createVectorTable, dropOrphanVectorTables, vectorTableExists } from '../retrieval/dense/vectorTable';
import { ensureSqliteVec } from '../retrieval/dense/sqliteVec';
import { searchFts, type FtsSearchResult } from '../retrieval/fts5/ftsSearch';
import { bm25Run } from '../retrieval/runs/bm25Run';
import { denseRun } from '../retrieval/runs/denseRun';
import { fuseRunsCounted } from '../retrieval/runs/fusionRun';
import { toResultRows, type RunRankings } from '../retrieval/runs/runTypes';
import { ModelsRepo } from '../store/modelsRepo';
import { RetrievalRepo, type RunRow } from '../store/retrievalRepo';
import type { JobContext, JobRunner } from './jobRunner';
import { createSimEngine, isSimRecord } from './simulation/simModels';

/** Opens the engine for a model reference. The service closes what it opened. */
export type OpenEngine = (model: string) => Promise<Engine>;

/**
 * The default `OpenEngine`: a model-library name (its stored SHA-256 spares re-hashing the file),
 * else a GGUF path, served by a local llama.cpp engine. A simulated reader of the library embeds
 * with its own lexical embedding (hashed bag of words; issue 26 item 4): its path `sim:COLLECTION`
 * is no file.
 */
export function localEngineOpener(db: Database, settings: () => { threads?: number | undefined }): OpenEngine {
  return async (model) => {
    const rec = new ModelsRepo(db).getByName(model);
    if (rec && isSimRecord(rec)) return createSimEngine(db, rec);
    const { threads } = settings();
    return new LocalEngine({
      modelPath: rec?.path ?? model,
      ...(rec ? { modelName: rec.name } : {}),
      ...(rec?.sha256 ? { modelKey: rec.sha256 } : {}),
      settings: threads ? { threads } : {},
    });
  };
}

export interface RetrievalServiceOptions {
  openEngine?: OpenEngine;
}

export interface SearchInput {
  collectionId: number;
  query: string;
  k: number;
  weights: { title: number; text: number };
}

export interface DenseBuildInput {
  collectionId: number;
  model: string;
  metric: VectorMetric;
  batchSize: number;
  /** Texts longer than the model's context: refuse (the default) or cut (retrieval/dense/fitTexts.ts). */
  overlong?: Overlong | undefined;
}

export interface DenseBuildResult {
  setId: number;
  dimensions: number;
  embedded: number;
  skipped: number;
  removed: number;
  empty: number;
  total: number;
  /** How the texts were fitted to the model's context, and what a user must know of it. */
  fit: FitRecord;
  warnings: string[];
}

/** The progress/cancel side of a job, which the CLI can also provide. */
export type WorkContext = Pick<JobContext, 'signal' | 'progress'>;

export class RetrievalService {
  readonly repo: RetrievalRepo;
  private readonly engines = new Map<string, Promise<Engine>>();
  /** Builds in progress in this process, by collection and model, so two never write one set. */
  private readonly building = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly jobs: JobRunner | undefined,
    private readonly options: RetrievalServiceOptions = {},
  ) {
    this.repo = new RetrievalRepo(db);
    // vec0 tables need the extension on this connection, even to be dropped or counted. Without it
    // BM25 still works; dense retrieval reports why it cannot.
    try {
      ensureSqliteVec(db);
      dropOrphanVectorTables(db, new Set(this.repo.embeddingSets().map((s) => s.id)));
    } catch (err) {
      this.vecUnavailable = `sqlite-vec cannot be loaded: ${(err as Error).message}`;
    }
    // Both kinds can be resumed from their stored params: a build skips what is embedded already;
    // a run stores nothing until it is complete, so it simply runs again.
    jobs?.registerKind<DenseBuildInput>('retrieval.dense.build', {
      title: (p) => `Embed ${this.repo.collectionName(p.collectionId) ?? `collection ${p.collectionId}`}`,
      run: (p, ctx) => this.buildDense(p, ctx),
    });
    jobs?.registerKind<RunSpec>('retrieval.run', {
      title: (p) => `${p.method.toUpperCase()} run on ${this.repo.collectionName(p.collectionId) ?? `collection ${p.collectionId}`}`,
      run: (p, ctx) => this.createRun(p, ctx),
    });
  }

  private readonly vecUnavailable: string | undefined;

  private requireVec(): void {
    if (this.vecUnavailable) throw new ApiFailure('internal', this.vecUnavailable);
  }

  // ---- search ----

  search(input: SearchInput): FtsSearchResult {
    this.requireCollection(input.collectionId);
    return searchFts(this.db, input);
  }

  // ---- dense ----

  startDenseBuild(input: DenseBuildInput): Job {
    this.requireVec();
    this.requireCollection(input.collectionId);
    return this.requireJobs().startKind('retrieval.dense.build', input);
  }

  async buildDense(input: DenseBuildInput, ctx: WorkContext): Promise<DenseBuildResult> {
    this.requireCollection(input.collectionId);
    const key = `${input.collectionId}\n${input.model}`;
    if (this.building.has(key)) throw new ApiFailure('conflict', 'this embedding set is already being built');
    this.building.add(key);
    try {
      return await this.buildDenseUnguarded(input, ctx);
    } finally {
      this.building.delete(key);
    }
  }

  private async buildDenseUnguarded(input: DenseBuildInput, ctx: WorkContext): Promise<DenseBuildResult> {
    this.requireVec();
    const engine = await this.engine(input.model);
    const identity = await engine.identity();
    const rows = this.repo.documents(input.collectionId).map((d) => ({ documentId: d.documentId, docId: d.docId, text: documentText(d.title, d.text) }));
    // Every text counted against the model's context before anything is embedded (issue 34 item 8b):
    // refused naming the first document that does not fit, or cut to fit, as the build asks.
    const fitted = await fitTexts(engine, rows.filter((d) => d.text.trim() !== ''), input.overlong ?? OVERLONG_DEFAULT, ctx.signal);
    const fittedText = new Map(rows.filter((d) => d.text.trim() !== '').map((d, i) => [d.documentId, fitted.texts[i]!]));
    const documents = rows.map((d) => ({ documentId: d.documentId, text: fittedText.get(d.documentId) ?? d.text }));
    let set = this.repo.embeddingSetFor(input.collectionId, identity.modelKey);
    if (!set || !vectorTableExists(this.db, set.id)) {
      if (set) this.repo.deleteEmbeddingSet(set.id);
      // The dimension is the model's; learn it from one short text before creating the vec0 table.
      const probe = await engine.embed({ texts: [documents.find((d) => d.text.trim() !== '')?.text ?? 'dimension probe'] }, ctx.signal);
      set = this.repo.createEmbeddingSet({
        collectionId: input.collectionId,
        modelKey: identity.modelKey,
        modelName: identity.modelName,
        dimensions: probe.dimensions,
        metric: input.metric,
        params: { document: 'title + " " + text', engine: identity.kind, versions: identity.versions, settings: identity.outputAffectingSettings },
      });
      createVectorTable(this.db, set.id, set.dimensions);
    }
    this.repo.setEmbeddingSetStatus(set.id, 'building', input.metric);
    const setId = set.id;
    this.repo.updateEmbeddingSetParams(setId, { fit: fitted.record });
    try {
      const result = await embedDocuments({
        db: this.db,
        embedder: engine,
        setId,
        dimensions: set.dimensions,
        documents,
        batchSize: input.batchSize,
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress(done, total, `${done} of ${total} documents embedded`),
      });
      this.repo.setEmbeddingSetStatus(setId, 'ready');
      return { setId, dimensions: set.dimensions, ...result, fit: fitted.record, warnings: fitWarnings(fitted.record) };
    } catch (err) {
      this.repo.setEmbeddingSetStatus(setId, ctx.signal.aborted ? 'partial' : 'failed');
      throw err;
    }
  }

  embeddingSets(collectionId?: number): z.infer<typeof EmbeddingSet>[] {
    this.requireVec();
    const docCount = this.db.prepare(`SELECT count(*) AS n FROM documents WHERE collection_id = ?`);
    return this.repo.embeddingSets(collectionId).map((s) => ({
      id: s.id,
      collectionId: s.collectionId,
      modelKey: s.modelKey,
      modelName: s.modelName,
      dimensions: s.dimensions,
      metric: s.metric,
      status: s.status,
      createdAt: s.createdAt,
      vectors: vectorTableExists(this.db, s.id) ? countVectors(this.db, s.id) : 0,
      documents: (docCount.get(s.collectionId) as { n: number }).n,
      fit: (s.params.fit as FitRecord | undefined) ?? null,
      warnings: s.params.fit ? fitWarnings(s.params.fit as FitRecord) : [],
    }));
  }

  // ---- runs ----

  startRun(spec: RunSpec): Job {
    this.requireCollection(spec.collectionId);
    this.checkRunSpec(spec);
    return this.requireJobs().startKind('retrieval.run', spec);
  }

  /** Runs `spec` for every query of the collection and stores the run; nothing is stored if it fails or is cancelled. */
  async createRun(spec: RunSpec, ctx: WorkContext): Promise<RunSummary> {
    this.requireCollection(spec.collectionId);
    this.checkRunSpec(spec);
    const onProgress = (done: number, total: number) => ctx.progress(done, total, `${done} of ${total} queries`);
    let rankings: RunRankings;
    let params: Record<string, unknown>;
    if (spec.method === 'bm25') {
      const tokenizer: TokenizerOptions = {
        ...(spec.candidates.tokenizer === 'whitespace' ? FAIR_RAG_TOKENIZER : { mode: 'words' }),
        ...(spec.candidates.stopwords === 'english' ? { stopwords: ENGLISH_STOPWORDS } : {}),
        ...(spec.candidates.stem ? { stem: porterStem } : {}),
      };
      const docs = this.candidateDocuments(spec.collectionId);
      rankings = await bm25Run({
        db: this.db,
        collectionId: spec.collectionId,
        queries: this.repo.queries(spec.collectionId).map((q) => ({
          queryId: q.queryId,
          text: q.text,
          candidates: q.candidates && docs.resolve(q.queryId, q.candidates).map((d) => ({ docId: d.docId, text: documentText(d.title, d.text) })),
        })),
        k: spec.k,
        weights: spec.weights,
        candidateParams: { k1: spec.candidates.k1, b: spec.candidates.b, idf: spec.candidates.idf, epsilon: spec.candidates.epsilon },
        tokenizer,
        signal: ctx.signal,
        onProgress,
      });
      // Two scorers under one "BM25" (issue 26 item 3): which queries each scored is recorded, so
      // the run is labelled truthfully (in-memory Okapi over candidates vs FTS5 over the collection).
      const allQueries = this.repo.queries(spec.collectionId);
      const withCandidates = allQueries.filter((q) => q.candidates !== null).length;
      params = {
        k: spec.k,
        collection: { fts5: 'bm25() over a per-collection index, k1 1.2, b 0.75', tokenizer: 'porter unicode61 remove_diacritics 2', weights: spec.weights },
        candidates: spec.candidates,
        scorers: { candidatesOkapi: withCandidates, collectionFts5: allQueries.length - withCandidates },
        tieOrder: 'trec_eval',
      };
    } else if (spec.method === 'dense') {
      const engine = await this.engine(spec.model);
      const identity = await engine.identity();
      const set = this.repo.embeddingSetFor(spec.collectionId, identity.modelKey);
      if (!set || set.status !== 'ready' || !vectorTableExists(this.db, set.id)) {
        throw new ApiFailure('conflict', `no finished embedding set of ${identity.modelName} for this collection; build it first (retrieval.dense.build)`);
      }
      const metric = spec.metric ?? set.metric;
      const docs = this.candidateDocuments(spec.collectionId);
      // A query longer than the model's context is refused before any is embedded, naming it (issue 34 item 8b).
      const queryTexts = this.repo.queries(spec.collectionId).filter((q) => q.text.trim() !== '');
      await fitTexts(engine, queryTexts.map((q) => ({ docId: q.queryId, text: q.text })), 'refuse', ctx.signal, 'query');
      rankings = await denseRun({
        index: new DenseIndex(this.db, set.id, spec.collectionId, set.dimensions),
        embedder: engine,
        queries: this.repo.queries(spec.collectionId).map((q) => ({
          queryId: q.queryId,
          text: q.text,
          candidates: q.candidates && docs.resolve(q.queryId, q.candidates),
        })),
        k: spec.k,
        metric,
        batchSize: spec.batchSize,
        signal: ctx.signal,
        onProgress,
      });
      // How the set's texts were fitted to the model's context (documents cut, issue 34 item 8b) goes with the run.
      const fit = set.params.fit as FitRecord | undefined;
      params = { k: spec.k, embeddingSetId: set.id, modelKey: set.modelKey, modelName: set.modelName, dimensions: set.dimensions, metric, tieOrder: 'trec_eval', ...(fit ? { fit } : {}) };
    } else {
      const inputs = spec.runIds.map((id) => {
        const run = this.requireRun(id);
        if (run.collectionId !== spec.collectionId) throw new ApiFailure('validation', `run ${id} belongs to another collection`, 'runIds');
        return this.rankings(id);
      });
      const fused = fuseRunsCounted(inputs, spec.k, { k: spec.rrfK, rankBase: spec.rankBase, ties: spec.ties, ...(spec.depth !== undefined ? { depth: spec.depth } : {}) });
      rankings = fused.rankings;
      onProgress(1, 1);
      params = {
        k: spec.k,
        runIds: spec.runIds,
        rrfK: spec.rrfK,
        rankBase: spec.rankBase,
        depth: spec.depth ?? null,
        tieOrder: spec.ties,
        ...(spec.ties === 'first-seen'
          ? { tieNote: `ties kept in first-seen order (RAG-Fusion's code): ${fused.nudged} tied score(s) lowered by the least amount so that trec_eval reads the stored order` }
          : {}),
      };
    }
    ctx.signal.throwIfAborted();
    const name = spec.name ?? this.repo.freeRunName(spec.collectionId, spec.method);
    if (this.repo.runByName(spec.collectionId, name)) throw new ApiFailure('conflict', `a run named '${name}' already exists in this collection`, 'name');
    return this.repo.createRun({ collectionId: spec.collectionId, name, method: spec.method, params }, toResultRows(rankings));
  }

  /** Whether `model` names a model of the workspace's library (rather than a file path). */
  isLibraryModel(model: string): boolean {
    return new ModelsRepo(this.db).getByName(model) !== undefined;
  }

  listRuns(collectionId?: number): RunSummary[] {
    return this.repo.runs(collectionId);
  }

  getRun(runId: number, options: { queryId?: string; perQuery: number }): { run: RunSummary; queries: z.infer<typeof RunQueryHits>[] } {
    const run = this.requireRun(runId);
    const rows = this.repo.results(runId, { perQuery: options.perQuery, ...(options.queryId !== undefined ? { queryId: options.queryId } : {}) });
    const titles = this.repo.titles(run.collectionId, rows.map((r) => r.docId));
    const byQuery = new Map<string, z.infer<typeof RunQueryHits>['hits']>();
    for (const r of rows) {
      let hits = byQuery.get(r.queryId);
      if (!hits) byQuery.set(r.queryId, (hits = []));
      hits.push({ rank: r.rank, docId: r.docId, title: titles.get(r.docId) ?? null, score: r.score });
    }
    const texts = this.repo.queryTexts(run.collectionId, [...byQuery.keys()]);
    return { run, queries: [...byQuery].map(([queryId, hits]) => ({ queryId, text: texts.get(queryId) ?? null, hits })) };
  }

  /**
   * The run as TREC text: the real scores, six columns (io/trec formatRun). The ir_metadata header
   * is written into the text only with `metadata: true` (strict readers fail on '#' lines); its
   * fields are returned either way, for a sidecar file.
   */
  exportTrec(runId: number, options: { tag?: string; metadata: boolean }): { text: string; filename: string; tag: string; metadata: IrMetadata } {
    const run = this.requireRun(runId);
    const tag = options.tag ?? runTag(run.name);
    const rows = this.repo.results(runId).map((r) => ({ qid: r.queryId, docno: r.docId, score: r.score }));
    const collection = this.repo.collectionName(run.collectionId) ?? String(run.collectionId);
    const metadata: IrMetadata = {
      tag,
      method: { retrieval: run.method, params: run.params },
      data: { collection },
      implementation: { software: 'Fairground' },
      'created-at': run.createdAt,
    };
    const text = formatRun(rows, { tag, ...(options.metadata ? { metadata } : {}) });
    return { text, filename: `${tag}.trec`, tag, metadata };
  }

  deleteRun(runId: number): boolean {
    return this.repo.deleteRun(runId);
  }

  async close(): Promise<void> {
    const engines = [...this.engines.values()];
    this.engines.clear();
    await Promise.allSettled(engines.map(async (e) => (await e).close()));
  }

  // ---- helpers ----

  private rankings(runId: number): RunRankings {
    const out: RunRankings = new Map();
    for (const r of this.repo.results(runId)) {
      let list = out.get(r.queryId);
      if (!list) out.set(r.queryId, (list = []));
      list.push({ id: r.docId, score: r.score });
    }
    return out;
  }

  /** Resolves a query's candidate doc ids to documents; an unknown id is an error in the data. */
  private candidateDocuments(collectionId: number) {
    const all = new Map(this.repo.documents(collectionId).map((d) => [d.docId, d]));
    return {
      resolve: (queryId: string, ids: readonly string[]) => {
        const seen = new Set<string>();
        return ids
          .filter((id) => !seen.has(id) && seen.add(id))
          .map((id) => {
            const d = all.get(id);
            if (!d) throw new ApiFailure('invalid-data', `query '${queryId}' lists candidate '${id}', which is not a document of the collection`);
            return d;
          });
      },
    };
  }

  private checkRunSpec(spec: RunSpec): void {
    if (spec.name !== undefined && this.repo.runByName(spec.collectionId, spec.name)) {
      throw new ApiFailure('conflict', `a run named '${spec.name}' already exists in this collection`, 'name');
    }
    if (spec.method === 'dense') this.requireVec();
    if (spec.method === 'dense' && !this.options.openEngine) throw new ApiFailure('engine', 'dense retrieval needs an embedding engine, and none is configured');
    if (spec.method === 'rrf') {
      if (new Set(spec.runIds).size !== spec.runIds.length) throw new ApiFailure('validation', 'runIds: a run is listed twice', 'runIds');
      for (const id of spec.runIds) this.requireRun(id);
    }
  }

  private engine(model: string): Promise<Engine> {
    const open = this.options.openEngine;
    if (!open) return Promise.reject(new ApiFailure('engine', 'dense retrieval needs an embedding engine, and none is configured'));
    let e = this.engines.get(model);
    if (!e) {
      e = open(model);
      this.engines.set(model, e);
      e.catch(() => this.engines.delete(model));
    }
    return e;
  }

  private requireCollection(collectionId: number): string {
    const name = this.repo.collectionName(collectionId);
    if (name === undefined) throw new ApiFailure('not-found', `no collection with id ${collectionId}`);
    return name;
  }

  private requireRun(runId: number): RunRow {
    const run = this.repo.run(runId);
    if (!run) throw new ApiFailure('not-found', `no retrieval run with id ${runId}`);
    return run;
  }

  private requireJobs(): JobRunner {
    if (!this.jobs) throw new Error('this retrieval service has no job runner');
    return this.jobs;
  }
}

/** A run name as a TREC run tag (no whitespace). */
export function runTag(name: string): string {
  return name.trim().replace(/\s+/g, '_') || 'run';
}
