/**
 * `fairground retrieve`: a retrieval run (BM25, dense or RRF) over every query of a collection,
 * stored in the workspace and written as a TREC run.
 */
import { resolve } from 'node:path';
import { RunSpec } from '../../api/contract/retrieval';
import { ApiFailure } from '../../api/router';
import { localEngineOpener, RetrievalService } from '../../services/retrievalService';
import { formatIrMetadataYaml } from '../../io/trec';
import { openWorkspace } from '../../store/workspace';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, resolveWorkspacePath, workspaceOptionSpec } from '../workspaceOption';
import { OUTPUT_HELP, checkOutputs, outputOptionSpec, writeChecked } from '../writeOutput';

const HELP = `Usage: fairground retrieve --collection NAME --method bm25|dense|rrf [options]

Runs retrieval for every query of a collection, stores the run in the workspace and writes it
as a TREC run ('qid Q0 docno rank score tag': six columns, the retrieval scores, documents with
equal scores in trec_eval's order, docno descending) to --output or stdout. The run carries no
'#' lines unless --metadata asks for them (pytrec_eval, ranx and ir_measures cannot read them);
with --output FILE its ir_metadata (PRIMAD) goes to the sidecar FILE.ir_metadata.yaml.

  bm25    queries with a candidate set (LaMP profiles) are scored in memory over their
          candidates (Okapi BM25; default = rank_bm25's BM25Okapi as in Fair-RAG: k1 1.5, b 0.75,
          negative idf floored at 0.25 x mean idf); other queries search the whole collection
          with SQLite FTS5 bm25() (k1 1.2, b 0.75, Porter-stemmed, per-collection statistics)
  dense   embeds the collection with --model first (resumable: only missing documents), then
          ranks by cosine (or dot) similarity to the embedded query
  rrf     reciprocal rank fusion of stored runs (--fuse, at least two), 1/(k + rank)

Options:
  --collection NAME      the collection (by name)
  --method M             bm25 | dense | rrf
  --k N                  results per query (default 100)
  --name NAME            name of the stored run (default: the method, numbered if taken); also the run tag
  --output FILE          write the TREC run here (default: stdout)
  --metadata             write the ir_metadata header ('#' lines) into the run itself
  --plain                no ir_metadata sidecar file
${OUTPUT_HELP}
${WORKSPACE_HELP}
 bm25:
  --title-weight W       FTS5 weight of the title field (default 1)
  --text-weight W        FTS5 weight of the text field (default 1)
  --k1 X  --b X          in-memory BM25 parameters (default 1.5, 0.75)
  --idf V                rank_bm25 (default) | robertson | lucene
  --epsilon X            rank_bm25 idf floor factor (default 0.25)
  --tokenizer T          words (default: lower-cased letter/digit runs) | whitespace (Fair-RAG: split on
                         whitespace, case kept)
  --stopwords S          none (default) | english (Lucene's 33 English stop words)
  --stem                 Porter-stem every token (NLTK mode; off by default, as in Fair-RAG)
 dense:
  --model NAME|FILE      embedding model: a model-library name ('fairground model add'; a simulated reader
                         embeds with its hashed bag of words) or a GGUF file
  --metric M             cosine (default) | dot
  --threads N            llama.cpp threads (default: physical cores)
  --batch-size N         texts per embedding call (default 16)
  --overlong refuse|cut  a document longer than the embedding model's context (counted with the
                         model's tokenizer before anything is embedded): refuse (default: stop,
                         naming the document, its tokens and the context) or cut it to the context
                         (the embedding set records how many documents and tokens were cut)
 rrf:
  --fuse NAME            a stored run of the collection; repeat (order breaks ties)
  --rrf-k K              RRF constant (default 60)
  --rank-base 0|1        1: top rank adds 1/(k+1) (default, Cormack et al.); 0: 1/k (RAG-Fusion code)
  --rrf-ties T           trec_eval (default: equal fused scores by docno descending, as every run here)
                         | first-seen (RAG-Fusion code: runs in --fuse order, each from its top; tied
                         scores are lowered by ulps so the export and evaluation keep that order)

Every run ranks equal scores by docno descending (trec_eval's order): the stored run, its export,
its evaluation and the candidates taken from it agree.

Examples:
  fairground retrieve --collection lamp4 --method bm25 --k 5 --output bm25.trec
  fairground retrieve --collection wpqa --method dense --model bge-small.gguf --name bge
  fairground retrieve --collection wpqa --method rrf --fuse bm25 --fuse bge --output fused.trec
`;

export const retrieveCommand: CliCommand = {
  path: ['retrieve'],
  summary: 'Run BM25, dense retrieval or RRF for every query of a collection (TREC run)',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      ...workspaceOptionSpec,
      ...outputOptionSpec,
      collection: { type: 'string' },
      method: { type: 'string' },
      k: { type: 'string' },
      name: { type: 'string' },
      output: { type: 'string', short: 'o' },
      plain: { type: 'boolean' },
      metadata: { type: 'boolean' },
      'title-weight': { type: 'string' },
      'text-weight': { type: 'string' },
      k1: { type: 'string' },
      b: { type: 'string' },
      idf: { type: 'string' },
      epsilon: { type: 'string' },
      tokenizer: { type: 'string' },
      stopwords: { type: 'string' },
      stem: { type: 'boolean' },
      model: { type: 'string' },
      metric: { type: 'string' },
      threads: { type: 'string' },
      'batch-size': { type: 'string' },
      overlong: { type: 'string' },
      fuse: { type: 'string', multiple: true },
      'rrf-k': { type: 'string' },
      'rank-base': { type: 'string' },
      'rrf-ties': { type: 'string' },
    });
    const collectionName = requireOption(values.collection, 'collection');
    const method = requireOption(values.method, 'method');
    if (!['bm25', 'dense', 'rrf'].includes(method)) throw new CliError(`--method: expected bm25, dense or rrf, got '${method}'`);
    const threads = numberOption(values.threads, 'threads', { integer: true, min: 1 });
    const overlong = values.overlong ?? 'refuse';
    if (overlong !== 'refuse' && overlong !== 'cut') throw new CliError(`--overlong: expected refuse or cut, got '${overlong}'`);
    if (values.overlong !== undefined && method !== 'dense') throw new CliError('--overlong applies to --method dense only');
    // A refused output target (the run or its sidecar) is reported before anything is computed or stored.
    const sidecar = values.output !== undefined && !values.metadata && !values.plain;
    const targets = values.output === undefined ? [] : checkOutputs(io, sidecar ? [values.output, `${values.output}.ir_metadata.yaml`] : [values.output], values['follow-symlinks']);

    return withRetrieval(io, values.workspace, threads, async (service) => {
      const collectionId = service.repo.collectionIdByName(collectionName);
      if (collectionId === undefined) throw new CliError(`no collection named '${collectionName}' in the workspace`);
      const num = (v: string | undefined, name: string) => numberOption(v, name);
      const raw: Record<string, unknown> = { collectionId, method, k: numberOption(values.k, 'k', { integer: true }), name: values.name };
      if (method === 'bm25') {
        raw.weights = { title: num(values['title-weight'], 'title-weight'), text: num(values['text-weight'], 'text-weight') };
        raw.candidates = {
          k1: num(values.k1, 'k1'),
          b: num(values.b, 'b'),
          idf: values.idf,
          epsilon: num(values.epsilon, 'epsilon'),
          tokenizer: values.tokenizer,
          stopwords: values.stopwords,
          stem: values.stem,
        };
      } else if (method === 'dense') {
        const model = requireOption(values.model, 'model');
        // A model-library name, else a path relative to the working directory.
        raw.model = service.isLibraryModel(model) ? model : resolve(io.cwd, model);
        raw.metric = values.metric;
        raw.batchSize = numberOption(values['batch-size'], 'batch-size', { integer: true });
      } else {
        const names = values.fuse ?? [];
        if (names.length < 2) throw new CliError('--fuse: name at least two stored runs to fuse');
        raw.runIds = names.map((n) => {
          const run = service.repo.runByName(collectionId, n);
          if (!run) throw new CliError(`--fuse: no run named '${n}' in collection '${collectionName}'`);
          return run.id;
        });
        raw.rrfK = num(values['rrf-k'], 'rrf-k');
        raw.rankBase = values['rank-base'] === undefined ? undefined : numberOption(values['rank-base'], 'rank-base', { integer: true, min: 0, max: 1 });
        if (values['rrf-ties'] !== undefined && values['rrf-ties'] !== 'trec_eval' && values['rrf-ties'] !== 'first-seen') {
          throw new CliError(`--rrf-ties: expected trec_eval or first-seen, got '${values['rrf-ties']}'`);
        }
        raw.ties = values['rrf-ties'];
      }
      const spec = parseSpec(raw);
      const ctx = cliContext(io);
      if (spec.method === 'dense') {
        const built = await service.buildDense({ collectionId, model: spec.model, metric: spec.metric ?? 'cosine', batchSize: spec.batchSize, overlong }, ctx);
        io.stderr.write(`embedding set ${built.setId}: ${built.embedded} embedded, ${built.skipped} already there${built.empty ? `, ${built.empty} blank` : ''}\n`);
        for (const w of built.warnings) io.stderr.write(`warning: ${w}\n`);
      }
      const run = await service.createRun(spec, ctx);
      const inline = values.metadata ?? false;
      const { text, metadata } = service.exportTrec(run.id, { metadata: inline });
      if (values.output === undefined) io.stdout.write(text);
      else {
        writeChecked(targets[0]!, text);
        if (sidecar) writeChecked(targets[1]!, formatIrMetadataYaml(metadata));
      }
      io.stderr.write(`stored run '${run.name}' (id ${run.id}): ${run.results} results for ${run.queries} queries\n`);
      return 0;
    });
  },
};

/** Opens the workspace and a retrieval service (local engines for GGUF paths), runs `fn`, closes both. */
export async function withRetrieval(
  io: CliIo,
  workspace: string | undefined,
  threads: number | undefined,
  fn: (service: RetrievalService) => Promise<number>,
): Promise<number> {
  const ws = openWorkspace(resolveWorkspacePath(workspace, io));
  const service = new RetrievalService(ws.db, undefined, { openEngine: localEngineOpener(ws.db, () => ({ threads })) });
  try {
    return await fn(service);
  } catch (err) {
    if (err instanceof ApiFailure) throw new CliError(err.message);
    throw err;
  } finally {
    await service.close();
    ws.close();
  }
}

function parseSpec(raw: Record<string, unknown>): RunSpec {
  const stripped = JSON.parse(JSON.stringify(raw)) as unknown; // drops undefined options
  const parsed = RunSpec.safeParse(stripped);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CliError(`${issue.path.join('.') || 'options'}: ${issue.message}`);
  }
  return parsed.data;
}

function cliContext(io: CliIo) {
  let last = 0;
  return {
    signal: new AbortController().signal,
    progress(done: number, total?: number | null, message?: string) {
      const now = Date.now();
      if (now - last < 1000 && !(total && done >= total)) return;
      last = now;
      io.stderr.write(`${message ?? `${done}${total ? ` of ${total}` : ''}`}\n`);
    },
  };
}
