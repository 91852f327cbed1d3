/**
 * Every `fairground` command, as its words, its one-line summary and a loader. A command's module
 * (and whatever it needs: SQLite, zod, the engine, ...) is imported only when that command runs or
 * prints its --help, so `fairground --help`, `--version` and a light command start without loading
 * the others (issue 18: the built CLI is split into chunks by scripts/build.mjs). Add a command by
 * creating a file in this folder that exports a `CliCommand` and listing it here with the same
 * path and summary (one entry each, kept alphabetical by path); test/cli/commandIndex.test.ts
 * checks that every entry loads a command with exactly that path and summary.
 */
import type { LazyCliCommand } from '../command';

export const commands: LazyCliCommand[] = [
  { path: ['cache', 'import'], summary: 'Fill the call cache from an OpenAI-Batch output file (checked against the exported requests)', load: () => import('./plan').then((m) => m.cacheImportCommand) },
  { path: ['cache', 'merge'], summary: "Merge other workspaces' call caches (shards) into this one", load: () => import('./plan').then((m) => m.cacheMergeCommand) },
  { path: ['collection', 'import'], summary: 'Import a corpus, queries, qrels, LaMP, MS MARCO or Fair-RAG labels into a collection', load: () => import('./collection').then((m) => m.collectionImport) },
  { path: ['collection', 'info'], summary: 'Show one collection: counts, content hash, input files, tasks, providers', load: () => import('./collection').then((m) => m.collectionInfo) },
  { path: ['collection', 'list'], summary: 'List the collections of a workspace with their counts', load: () => import('./collection').then((m) => m.collectionList) },
  { path: ['conversation', 'evaluate'], summary: 'GFRC2, EGNP, EGF, GFRC, R and GF per conversation of a set, with the mean per run', load: () => import('./conversation').then((m) => m.conversationEvaluate) },
  { path: ['conversation', 'export'], summary: 'Write a conversation set as JSONL, or one `eval gfrc2` input JSON per conversation', load: () => import('./conversation').then((m) => m.conversationExport) },
  { path: ['conversation', 'from-run'], summary: "Turn a Fair RAG run's answers into conversations, for one, several or all conditions at once", load: () => import('./conversation').then((m) => m.conversationFromRun) },
  { path: ['conversation', 'import'], summary: 'Import conversations (JSONL) with their nuggets into a conversation set', load: () => import('./conversation').then((m) => m.conversationImport) },
  { path: ['eval', 'compare'], summary: 'Several runs against a baseline: measures as columns, paired tests, Holm/Bonferroni/BH, CSV or LaTeX', load: () => import('./evalCompare').then((m) => m.evalCompareCommand) },
  { path: ['eval', 'exposure'], summary: 'Expected exposure (EE-D/EE-R/EE-L) and attribution (EAR/EAE-D) of a stochastic run', load: () => import('./evalExposure').then((m) => m.evalExposureCommand), streaming: true },
  { path: ['eval', 'gfrc2'], summary: 'GFRC2 and GFRC group fairness and relevance of a conversation', load: () => import('./evalGfrc2').then((m) => m.evalGfrc2Command) },
  { path: ['eval', 'ir'], summary: 'Evaluate a TREC run against qrels (nDCG@k, AP, RR, P@k, R@k, Judged@k)', load: () => import('./evalIr').then((m) => m.evalIrCommand), streaming: true },
  { path: ['eval', 'text'], summary: 'Score predictions with ROUGE (rouge-score or pltrdy), SQuAD F1/EM, accuracy, MAE or RMSE', load: () => import('./evalText').then((m) => m.evalTextCommand) },
  { path: ['experiment', 'export'], summary: 'Export a run: CSV, stochastic TREC run, qrels, attribution labels, LaTeX Table 2, manifest', load: () => import('./experiment').then((m) => m.experimentExport) },
  { path: ['experiment', 'list'], summary: 'List experiments and their runs', load: () => import('./experiment').then((m) => m.experimentList) },
  { path: ['experiment', 'show'], summary: 'Show a run: its status, call counters and a summary of its metrics', load: () => import('./experiment').then((m) => m.experimentShow) },
  { path: ['label', 'export'], summary: 'Write utility labels as TREC qrels or Fair-RAG relevance mapping / delta TSV', load: () => import('./labelExport').then((m) => m.labelExportCommand) },
  { path: ['label', 'utility'], summary: 'Label candidates by their utility gain with a generator (Fair RAG Algorithm 1)', load: () => import('./labelUtility').then((m) => m.labelUtilityCommand) },
  { path: ['model', 'add'], summary: 'Add a GGUF model to the workspace library (reads its header, hashes the file)', load: () => import('./modelLibrary').then((m) => m.modelAddCommand) },
  { path: ['model', 'add-sim'], summary: 'Add a simulated reader (planted truth) to the model library', load: () => import('./modelAddSim').then((m) => m.modelAddSimCommand) },
  { path: ['model', 'download'], summary: 'Download a GGUF (https:// or hf:) into the models folder and add it to the library', load: () => import('./modelDownload').then((m) => m.modelDownloadCommand) },
  { path: ['model', 'info'], summary: "Show a model's header facts (a GGUF path, or a library name)", load: () => import('./modelLibrary').then((m) => m.modelInfoCommand) },
  { path: ['model', 'list'], summary: 'List the models in the workspace library', load: () => import('./modelLibrary').then((m) => m.modelListCommand) },
  { path: ['model', 'make-tiny'], summary: 'Write a tiny random llama GGUF (for tests and benchmarks; no download)', load: () => import('./modelMakeTiny').then((m) => m.modelMakeTinyCommand) },
  { path: ['model', 'remove'], summary: 'Remove a model from the library (the file is not deleted)', load: () => import('./modelLibrary').then((m) => m.modelRemoveCommand) },
  { path: ['model', 'try'], summary: 'Generate once from a model and print the text (greedy unless --temperature)', load: () => import('./modelTry').then((m) => m.modelTryCommand) },
  { path: ['model', 'tune'], summary: 'Measure a model at each CPU thread count on this machine and keep the fastest', load: () => import('./modelTune').then((m) => m.modelTuneCommand) },
  { path: ['moi', 'solve'], summary: 'MoI position bias and debiased passage utility from permutation scores', load: () => import('./moiSolve').then((m) => m.moiSolveCommand) },
  { path: ['plan', 'export'], summary: "Write the spec's uncached calls as an OpenAI-Batch JSONL file (vLLM run-batch, Ray)", load: () => import('./plan').then((m) => m.planExportCommand) },
  { path: ['remote', 'add'], summary: 'Add an OpenAI-compatible server, or a pool of replicas serving one model', load: () => import('./remote').then((m) => m.remoteAddCommand) },
  { path: ['remote', 'endpoints'], summary: "Replace a server's endpoints (add or drop replicas, change limits) and ask them again; its cache identity stays", load: () => import('./remote').then((m) => m.remoteEndpointsCommand) },
  { path: ['remote', 'list'], summary: 'List the OpenAI-compatible servers of the workspace with their endpoints', load: () => import('./remote').then((m) => m.remoteListCommand) },
  { path: ['remote', 'remove'], summary: 'Forget an OpenAI-compatible server (its cached calls stay)', load: () => import('./remote').then((m) => m.remoteRemoveCommand) },
  { path: ['remote', 'set'], summary: "Change a server's settings (per-request timeout, weights re-check interval)", load: () => import('./remote').then((m) => m.remoteSetCommand) },
  { path: ['retrieve'], summary: 'Run BM25, dense retrieval or RRF for every query of a collection (TREC run)', load: () => import('./retrieve').then((m) => m.retrieveCommand) },
  { path: ['retrieve', 'search'], summary: 'Search a collection with BM25 and show highlighted snippets', load: () => import('./retrieveSearch').then((m) => m.retrieveSearchCommand) },
  { path: ['richrag', 'coverage'], summary: "RichRAG coverage silver list, COM* and a ranking's COM/NCOM", load: () => import('./richragCoverage').then((m) => m.richragCoverageCommand) },
  { path: ['run'], summary: 'Run an experiment spec (JSON/YAML) headless, resuming an unfinished run', load: () => import('./run').then((m) => m.runCommand) },
  { path: ['sample'], summary: 'Sample a stochastic run from a deterministic one (Plackett-Luce, fairness control alpha)', load: () => import('./sample').then((m) => m.sampleCommand) },
  { path: ['serve'], summary: 'Serve the app in the browser (127.0.0.1 only, token-protected)', load: () => import('./serve').then((m) => m.serve) },
  { path: ['simulate', 'power'], summary: 'Power of a spec’s significance test by simulation on planted truth', load: () => import('./simulatePower').then((m) => m.simulatePowerCommand) },
  { path: ['stats', 'compare'], summary: 'paired or unpaired t / randomization test of two per-query score files', load: () => import('./statsCompare').then((m) => m.statsCompareCommand) },
  { path: ['workspace', 'check'], summary: 'Run an integrity check of a workspace', load: () => import('./workspace').then((m) => m.workspaceCheck) },
  { path: ['workspace', 'info'], summary: 'Show a workspace: path, schema, size and row counts (read-only)', load: () => import('./workspace').then((m) => m.workspaceInfo) },
  { path: ['workspace', 'init'], summary: 'Create a workspace file (or bring an existing one up to date)', load: () => import('./workspace').then((m) => m.workspaceInit) },
  { path: ['workspace', 'migrate'], summary: 'Apply pending schema migrations to a workspace', load: () => import('./workspace').then((m) => m.workspaceMigrate) },
];
