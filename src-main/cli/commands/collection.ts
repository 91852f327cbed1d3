/** `fairground collection import|list|info`: test collections from the command line. */
import { resolve } from 'node:path';
import { parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, resolveWorkspacePath, workspaceOptionSpec } from '../workspaceOption';
import { inspectWorkspace, openWorkspace, type Workspace } from '../../store/workspace';
import { CollectionsService, type ImportFilesRequest } from '../../services/collectionsService';
import { EventBus } from '../../services/eventBus';
import { JobRunner } from '../../services/jobRunner';
import { IMPORT_KINDS, type ImportKind } from '../../io/importers/index';

async function withCollections<T>(path: string, create: boolean, fn: (svc: CollectionsService, ws: Workspace) => Promise<T>): Promise<T> {
  if (!create && !inspectWorkspace(path).exists) throw new CliError(`no workspace at ${path} (create one with 'fairground workspace init')`);
  const ws = openWorkspace(path);
  try {
    return await fn(new CollectionsService(ws.db, new JobRunner(ws.db, new EventBus())), ws);
  } finally {
    ws.close();
  }
}

const MAPPING_OPTIONS = {
  'id-column': 'idColumn',
  'text-column': 'textColumn',
  'title-column': 'titleColumn',
  'answers-column': 'answersColumn',
  'task-column': 'taskColumn',
  'metric-column': 'metricColumn',
  'subaspects-column': 'subaspectsColumn',
  'candidates-column': 'candidatesColumn',
  task: 'task',
  metric: 'metric',
  generator: 'generator',
  'lamp-task': 'lampTask',
  delimiter: 'delimiter',
} as const;

export const collectionImport: CliCommand = {
  path: ['collection', 'import'],
  summary: 'Import a corpus, queries, qrels, LaMP, MS MARCO or Fair-RAG labels into a collection',
  help: `Usage: fairground collection import --kind KIND --name NAME FILE... [options]

Reads FILE... completely and checks every line before writing anything; the collection is created
when it does not exist. Importing content the collection already has changes nothing (reported);
an id that is already there with different content is an error naming file and line. Labels
(qrels, fairrag-mapping) that differ from stored ones — manual, LLM (label utility) or imported —
are an error naming the first differences, unless --replace-labels is given.

Kinds and their files:
  corpus            documents: .jsonl, .json (array), .csv (RFC 4180) or .tsv
  queries           queries: same formats (answers, task, metric, subaspects, candidates columns)
  qrels             TREC qrels 'qid iter docno rel' (relevance judgments)
  lamp              LaMP questions JSON [{id, input, profile}] and outputs JSON {task, golds}
  msmarco           collection.tsv (pid<TAB>text), queries TSV (qid<TAB>text), qrels
  fairrag-mapping   Fair-RAG relevance_mapping TSV (qid pid relevance_label) and/or delta TSV

Options:
  --kind KIND              one of ${IMPORT_KINDS.join(', ')}
  --name NAME              the collection
  --description TEXT       description when the collection is created
  --format F               jsonl | json | csv | tsv (default: from the file name)
  --delimiter C            CSV delimiter (default ',')
  --no-header              CSV/TSV without a header line: columns are named 1, 2, 3, ...
  --id-column C            column/key with the id (default: guessed: id, docid, pid, qid, ...)
  --text-column C          column/key with the text (default: guessed: text, contents, query, ...)
  --title-column C         corpus: title column
  --attr-column C          column copied into attrs (repeatable; default: every unmapped column)
  --answers-column C       queries: answers (a string or a JSON list)
  --task-column C, --metric-column C, --subaspects-column C, --candidates-column C
  --task T, --metric M     queries: task/metric for rows without one
  --generator G            judgments: generator named in the labels' provenance
  --lamp-task T            lamp: LaMP-1..7 when no outputs file names the task
  --replace-labels         judgments: replace stored labels of another value (the old one stays in the
                           label's provenance.previous); the report says how many were replaced
${WORKSPACE_HELP}
      --json             print the import report as JSON

Example: fairground collection import --kind lamp --name lamp2 dev_questions.json dev_outputs.json`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(
      argv,
      {
        ...workspaceOptionSpec,
        kind: { type: 'string' },
        name: { type: 'string' },
        description: { type: 'string' },
        format: { type: 'string' },
        'no-header': { type: 'boolean' },
        'attr-column': { type: 'string', multiple: true },
        'replace-labels': { type: 'boolean' },
        json: { type: 'boolean' },
        ...Object.fromEntries(Object.keys(MAPPING_OPTIONS).map((k) => [k, { type: 'string' as const }])),
      },
      true,
    );
    const kind = requireOption(values.kind as string | undefined, 'kind');
    if (!(IMPORT_KINDS as readonly string[]).includes(kind)) throw new CliError(`--kind: expected one of ${IMPORT_KINDS.join(', ')}, got '${kind}'`);
    const name = requireOption(values.name as string | undefined, 'name');
    if (positionals.length === 0) throw new CliError('no files to import');
    const format = values.format as string | undefined;
    if (format !== undefined && !['jsonl', 'json', 'csv', 'tsv'].includes(format)) throw new CliError(`--format: expected jsonl, json, csv or tsv, got '${format}'`);
    const mapping: NonNullable<ImportFilesRequest['mapping']> = {};
    for (const [opt, key] of Object.entries(MAPPING_OPTIONS)) {
      const v = (values as Record<string, unknown>)[opt];
      if (typeof v === 'string') mapping[key] = v;
    }
    if (mapping.delimiter !== undefined && mapping.delimiter.length !== 1) throw new CliError(`--delimiter: expected one character, got '${mapping.delimiter}'`);
    if (format) mapping.format = format as 'jsonl';
    if (values['no-header']) mapping.header = false;
    const attrs = values['attr-column'] as string[] | undefined;
    if (attrs) mapping.attrColumns = attrs;
    const files = positionals.map((p) => resolve(io.cwd, p));
    const path = resolveWorkspacePath(values.workspace as string | undefined, io);
    return withCollections(path, true, async (svc) => {
      let last = Date.now(); // quiet for imports that take less than a second
      let lastWait = '';
      const report = await svc.importFiles(
        {
          collectionName: name,
          kind: kind as ImportKind,
          files,
          mapping,
          ...(values.description !== undefined ? { description: values.description as string } : {}),
          ...(values['replace-labels'] ? { replaceLabels: true } : {}),
        },
        {
          progress: (done, total, message) => {
            // Another writer holds the workspace (issue 15 item 5): say whom we wait for, once per holder.
            if (message?.startsWith('waiting for the workspace')) {
              if (message !== lastWait) io.stderr.write(`${message}\n`);
              lastWait = message;
              return;
            }
            const now = Date.now();
            // Progress lines only (the summary is printed below); quiet when it is quick.
            if (now - last < 1000 || !total || !(message === 'writing' || message?.startsWith('read'))) return;
            last = now;
            io.stderr.write(`${Math.floor((100 * done) / total)}% ${message ?? ''}\n`);
          },
        },
      );
      if (values.json) io.stdout.write(`${JSON.stringify(report)}\n`);
      else {
        io.stdout.write(`${report.message}\n`);
        io.stdout.write(`collection ${report.collectionName} (id ${report.collectionId}), content hash ${report.contentHash}\n`);
      }
      return 0;
    });
  },
};

export const collectionList: CliCommand = {
  path: ['collection', 'list'],
  summary: 'List the collections of a workspace with their counts',
  help: `Usage: fairground collection list [--workspace PATH] [--json]

${WORKSPACE_HELP}
      --json             print JSON`,
  async run(argv, io: CliIo) {
    const { values } = parseCliArgs(argv, { ...workspaceOptionSpec, json: { type: 'boolean' } });
    return withCollections(resolveWorkspacePath(values.workspace, io), false, async (svc) => {
      const list = svc.list();
      if (values.json) io.stdout.write(`${JSON.stringify(list)}\n`);
      else if (list.length === 0) io.stdout.write('no collections\n');
      else {
        io.stdout.write(`${'id'.padStart(4)}  ${'documents'.padStart(10)} ${'queries'.padStart(8)} ${'judgments'.padStart(10)}  name\n`);
        for (const c of list) {
          io.stdout.write(`${String(c.id).padStart(4)}  ${String(c.counts.documents).padStart(10)} ${String(c.counts.queries).padStart(8)} ${String(c.counts.judgments).padStart(10)}  ${c.name}\n`);
        }
      }
      return 0;
    });
  },
};

export const collectionInfo: CliCommand = {
  path: ['collection', 'info'],
  summary: 'Show one collection: counts, content hash, input files, tasks, providers',
  help: `Usage: fairground collection info NAME [--workspace PATH] [--json]

${WORKSPACE_HELP}
      --json             print JSON`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, json: { type: 'boolean' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one collection name');
    const name = positionals[0]!;
    return withCollections(resolveWorkspacePath(values.workspace, io), false, async (svc) => {
      const row = svc.byName(name);
      if (!row) throw new CliError(`no collection named '${name}'`);
      const c = svc.get(row.id);
      if (values.json) {
        io.stdout.write(`${JSON.stringify(c)}\n`);
        return 0;
      }
      const out = [
        `Collection ${c.name} (id ${c.id})`,
        ...(c.description ? [`  ${c.description}`] : []),
        `  created       ${c.createdAt}`,
        `  content hash  ${c.contentHash}`,
        `  documents     ${c.counts.documents}`,
        `  queries       ${c.counts.queries}`,
        `  judgments     ${c.counts.judgments}`,
      ];
      if (c.tasks.length) {
        out.push('  tasks:');
        for (const t of c.tasks) out.push(`    ${(t.task ?? '(none)').padEnd(20)} ${(t.metric ?? '').padEnd(10)} ${t.count} queries`);
      }
      if (c.providers.length && !(c.providers.length === 1 && c.providers[0]!.value === null)) {
        out.push('  providers:');
        for (const p of c.providers) out.push(`    ${(p.value ?? '(none)').padEnd(30)} ${p.count} documents`);
      }
      if (c.sources.length) {
        out.push('  files:');
        for (const s of c.sources) out.push(`    ${s.kind.padEnd(16)} ${String(s.rows).padStart(8)} rows  sha256 ${s.sha256.slice(0, 12)}  ${s.file}`);
      }
      io.stdout.write(`${out.join('\n')}\n`);
      return 0;
    });
  },
};
