/** `fairground conversation import|evaluate|export|from-run`: conversation sets for GFRC / GFRC2 from the command line. */
import { mkdirSync, readFileSync } from 'node:fs';
import { OUTPUT_HELP, checkOutputs, outputOptionSpec, writeChecked } from '../writeOutput';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { AttributeSetInput } from '../../api/contract/conversations';
import { formatIssuePath } from '../../api/contract/define';
import type { RVariant } from '../../core/fairness/gfrc';
import { jsonSyntaxError } from '../../io/importers/jsonElements';
import { decodeUtf8 } from '../../io/lines';
import { csvField } from '../../io/measureCsv';
import { ApiFailure } from '../../api/apiFailure';
import { ConversationsService } from '../../services/conversations/conversationsService';
import { conversationsFromFairRagRun } from '../../services/conversations/ragBridge';
import { inspectWorkspace, openWorkspace } from '../../store/workspace';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';
import { WORKSPACE_HELP, resolveWorkspacePath, workspaceOptionSpec } from '../workspaceOption';

const R_VARIANTS: readonly RVariant[] = ['eq6', 'eq7', 'eq9'];

function withService<T>(path: string, create: boolean, fn: (svc: ConversationsService) => T): T {
  if (!create && !inspectWorkspace(path).exists) throw new CliError(`no workspace at ${path} (create one with 'fairground workspace init')`);
  const ws = openWorkspace(path);
  try {
    return fn(new ConversationsService(ws.db));
  } finally {
    ws.close();
  }
}

function setByName(svc: ConversationsService, name: string) {
  const set = svc.findSet(name);
  if (!set) throw new CliError(`no conversation set named '${name}'`);
  return set;
}

export const conversationImport: CliCommand = {
  path: ['conversation', 'import'],
  summary: 'Import conversations (JSONL) with their nuggets into a conversation set',
  help: `Usage: fairground conversation import FILE --set NAME [--L 1000] [--l-max 2] [options]

Reads FILE completely and checks every line before writing anything (one transaction); errors name
the file, the line and the field. The set is created when it does not exist.

FILE has one conversation per line:
  {"id": "R112-ORG", "topic": "R112", "run": "ORG", "turns": [
     {"role": "user", "text": "..."},
     {"role": "system", "text": "...", "nuggets": [
        {"text": "Andrew Ng https://...", "level": 2, "groups": {"PRONOUN": [1, 0, 0], "HINDEX": "G4"}}]}]}
A nugget is found by its text (the first occurrence not taken by an earlier nugget of the turn) or
placed by "start"/"end" character offsets in the turn's text (end exclusive; with offsets alone, e.g.
{"start": 6, "end": 16, "level": 2}, the text is those characters); a membership is a vector or a group
label. The first line may describe the set: {"conversation_set": {"L": 1000, "l_max": 2,
"attribute_sets": [{"name", "kind": "nominal|ordinal", "groups": [...], "target"?, "measure"?}]}}.
Without it, attribute sets are inferred from the nuggets (nominal, uniform target, JSD).
Words are counted as in FairWeb-2: "U:"/"S:" glued to a turn's first word, whitespace-separated.

Options:
  --set NAME               the conversation set
  --L N                    reading budget in words for a new set (default: the file's, else 1000)
  --l-max N                highest relevance level for a new set (default: the file's, else 2)
  --glued-first-word M     exclude (default, as FairWeb-2) | include: whether a nugget that starts a
                           system turn counts the word glued to "S:"
  --attributes FILE.json   attribute sets of a new set: [{"name", "kind", "groups", "target"?, "measure"?}]
${WORKSPACE_HELP}
      --json               print the import report as JSON

Example: fairground conversation import runs.jsonl --set fairweb-cs --L 1000 --l-max 2`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(
      argv,
      { ...workspaceOptionSpec, set: { type: 'string' }, L: { type: 'string' }, 'l-max': { type: 'string' }, 'glued-first-word': { type: 'string' }, attributes: { type: 'string' }, json: { type: 'boolean' } },
      true,
    );
    const setName = requireOption(values.set, 'set');
    if (positionals.length !== 1) throw new CliError(positionals.length === 0 ? 'no file to import' : 'give one file to import');
    const L = numberOption(values.L, 'L', { integer: true, min: 1 });
    const lMax = numberOption(values['l-max'], 'l-max', { integer: true, min: 1 });
    const glued = values['glued-first-word'];
    if (glued !== undefined && glued !== 'exclude' && glued !== 'include') throw new CliError(`--glued-first-word: expected exclude or include, got '${glued}'`);
    let attributeSets: AttributeSetInput[] | undefined;
    if (values.attributes !== undefined) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(resolve(io.cwd, values.attributes));
      } catch (err) {
        throw new CliError(`--attributes: cannot read ${values.attributes} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
      // Strict UTF-8 and a one-line syntax error with its line, as every other JSON input.
      const text = decodeUtf8(bytes, values.attributes).replace(/^\uFEFF/, '');
      let json: unknown;
      try {
        json = JSON.parse(text) as unknown;
      } catch (err) {
        throw jsonSyntaxError(err, text, values.attributes, 1);
      }
      const parsed = z.array(AttributeSetInput).safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new CliError(`--attributes: ${values.attributes}: ${formatIssuePath(issue.path) || 'the file'}: ${issue.message}`);
      }
      attributeSets = parsed.data;
    }
    const file = positionals[0]!;
    const path = resolveWorkspacePath(values.workspace, io);
    const report = withService(path, true, (svc) =>
      svc.importFile({ setName, L, lMax, gluedFirstWord: glued as 'exclude' | 'include' | undefined, attributeSets }, resolve(io.cwd, file)),
    );
    if (values.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      io.stdout.write(`${report.createdSet ? 'created' : 'added to'} '${report.setName}' (id ${report.setId}): ${report.conversations} conversations, ${report.turns} turns, ${report.nuggets} nuggets\n`);
      for (const n of report.notes) io.stdout.write(`note: ${n}\n`);
    }
    return 0;
  },
};

export const conversationEvaluate: CliCommand = {
  path: ['conversation', 'evaluate'],
  summary: 'GFRC2, EGNP, EGF, GFRC, R and GF per conversation of a set, with the mean per run',
  help: `Usage: fairground conversation evaluate --set NAME [--r-variant eq6|eq7|eq9] [--csv]

Scores every conversation of the set from its stored nuggets (suggestions not yet accepted are left
out) with GFRC2 (EGNP, EGF per attribute set) and GFRC (R, GF per attribute set), and prints one row
per conversation and one row per run with the mean over its topics (topic 'all').

Options:
  --set NAME           the conversation set
  --r-variant V        GFRC's R: eq6 (default, the paper's), eq7 (FairWeb-2's), eq9
  --csv                CSV (run,topic,conversation,measures...) instead of an aligned table
${WORKSPACE_HELP}

Example: fairground conversation evaluate --set fairweb-cs --r-variant eq7 --csv > gfrc.csv`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, { ...workspaceOptionSpec, set: { type: 'string' }, 'r-variant': { type: 'string' }, csv: { type: 'boolean' } });
    const setName = requireOption(values.set, 'set');
    const rVariant = (values['r-variant'] ?? 'eq6') as RVariant;
    if (!R_VARIANTS.includes(rVariant)) throw new CliError(`--r-variant: expected one of ${R_VARIANTS.join(', ')}, got '${rVariant}'`);
    const path = resolveWorkspacePath(values.workspace, io);
    const ev = withService(path, false, (svc) => svc.evaluateSet(setByName(svc, setName).id, { rVariant }));
    const header = ['run', 'topic', 'conversation', ...ev.measures];
    const rows: string[][] = [];
    const fmt = (x: number | null | undefined) => (x === null || x === undefined ? '' : values.csv ? String(Number(x.toPrecision(12))) : x.toFixed(6));
    for (const run of ev.runs) {
      for (const c of ev.conversations.filter((x) => x.run === run)) rows.push([run, c.topic, c.convId, ...ev.measures.map((m) => fmt(c.values?.[m]))]);
      const mean = ev.means.find((m) => m.run === run)!;
      rows.push([run, 'all', `${mean.topics} topics`, ...ev.measures.map((m) => fmt(mean.values[m]))]);
    }
    if (values.csv) {
      io.stdout.write(`${[header, ...rows].map((r) => r.map(csvField).join(',')).join('\n')}\n`);
    } else {
      const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
      const line = (r: string[]) => r.map((v, i) => (i < 3 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ').trimEnd();
      io.stdout.write(`${[line(header), ...rows.map(line)].join('\n')}\n`);
      io.stdout.write(`L = ${ev.L}, l_max = ${ev.lMax}, R by ${rVariant}; attribute sets: ${ev.attributeSets.map((a) => `${a.name} (${a.kind}, ${a.measure})`).join(', ') || 'none'}\n`);
    }
    for (const n of ev.notes) io.stderr.write(`note: ${n}\n`);
    return 0;
  },
};

export const conversationExport: CliCommand = {
  path: ['conversation', 'export'],
  summary: 'Write a conversation set as JSONL, or one `eval gfrc2` input JSON per conversation',
  help: `Usage: fairground conversation export --set NAME [--format jsonl|gfrc2] [--out PATH]

  --format jsonl     (default) the set as conversations JSONL (first line: the set's description),
                     which 'conversation import' reads back; to --out FILE or stdout
  --format gfrc2     one 'fairground eval gfrc2 --input' file per conversation, into --out FOLDER
${OUTPUT_HELP}
${WORKSPACE_HELP}

Example: fairground conversation export --set fairweb-cs --format gfrc2 --out gfrc2-inputs/`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, { ...workspaceOptionSpec, ...outputOptionSpec, set: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' } });
    const setName = requireOption(values.set, 'set');
    const format = values.format ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'gfrc2') throw new CliError(`--format: expected jsonl or gfrc2, got '${format}'`);
    const path = resolveWorkspacePath(values.workspace, io);
    return withService(path, false, (svc) => {
      const set = setByName(svc, setName);
      if (format === 'jsonl') {
        const file = svc.exportJsonl(set.id);
        if (values.out) writeChecked(checkOutputs(io, [values.out], values['follow-symlinks'])[0]!, file.content);
        else io.stdout.write(file.content);
        return 0;
      }
      const out = requireOption(values.out, 'out');
      const dir = resolve(io.cwd, out);
      mkdirSync(dir, { recursive: true });
      const files = svc.exportGfrcInputs({ setId: set.id });
      // Every file is checked before the first is written.
      const targets = checkOutputs(io, files.map((f) => join(out, f.fileName)), values['follow-symlinks']);
      files.forEach((f, i) => writeChecked(targets[i]!, f.content));
      io.stdout.write(`wrote ${files.length} file(s) to ${dir}\n`);
      return 0;
    });
  },
};

export const conversationFromRun: CliCommand = {
  path: ['conversation', 'from-run'],
  summary: "Turn a Fair RAG run's answers into conversations, for one, several or all conditions at once",
  help: `Usage: fairground conversation from-run RUN --set NAME [--conditions all|C1,C2,...] [--sample N] [options]

One conversation per (condition, query): the query is the user turn, the generated answer of the
sample the system turn; the providers of the documents the generator was given become an attribute
set (groups: the values seen over every chosen condition). All chosen conditions are one import:
nothing is written when any conversation is refused (e.g. an id already in the set). Conversation
ids are EXPERIMENT#RUN/CONDITION/QUERY, the run column EXPERIMENT#RUN/CONDITION. Nuggets are then
marked by hand (Conversations screen) or imported.

Options:
  --set NAME               the conversation set (created when it does not exist)
  --conditions all|LIST    all (default) or a comma-separated list, e.g. bm25/deterministic,bm25/alpha=2
  --condition C            one condition (the same as --conditions C)
  --sample N               sample index within each condition (default 0)
  --attribute A            document attribute that gives the groups (default provider)
  --L N                    reading budget in words for a new set (default 1000)
  --l-max N                highest relevance level for a new set (default 2)
${WORKSPACE_HELP}
      --json               print the report as JSON

Example: fairground conversation from-run 3 --set weather-answers --conditions all`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(
      argv,
      {
        ...workspaceOptionSpec,
        set: { type: 'string' },
        conditions: { type: 'string' },
        condition: { type: 'string' },
        sample: { type: 'string' },
        attribute: { type: 'string' },
        L: { type: 'string' },
        'l-max': { type: 'string' },
        json: { type: 'boolean' },
      },
      true,
    );
    const setName = requireOption(values.set, 'set');
    if (positionals.length !== 1) throw new CliError(positionals.length === 0 ? 'give the run id (fairground experiment list shows them)' : 'give one run id');
    const runId = Number(positionals[0]);
    if (!Number.isInteger(runId) || runId < 1) throw new CliError(`expected a run id (a positive integer), got '${positionals[0]}'`);
    if (values.condition !== undefined && values.conditions !== undefined) throw new CliError('give --condition or --conditions, not both');
    const list = values.condition ?? values.conditions ?? 'all';
    const names = list === 'all' ? 'all' : list.split(',').map((c) => c.trim()).filter((c) => c !== '');
    if (names !== 'all' && names.length === 0) throw new CliError(`--conditions: expected all or a comma-separated list of conditions, got '${list}'`);
    const sample = numberOption(values.sample, 'sample', { integer: true, min: 0 });
    const L = numberOption(values.L, 'L', { integer: true, min: 1 });
    const lMax = numberOption(values['l-max'], 'l-max', { integer: true, min: 1 });
    const path = resolveWorkspacePath(values.workspace, io);
    const report = withService(path, false, (svc) => {
      try {
        return conversationsFromFairRagRun(svc, { setName, runId, conditions: names, sample, attribute: values.attribute, L, lMax });
      } catch (err) {
        if (err instanceof ApiFailure) throw new CliError(err.message);
        throw err;
      }
    });
    if (values.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else {
      io.stdout.write(
        `${report.createdSet ? 'created' : 'added to'} '${report.setName}' (id ${report.setId}): ${report.conversations} conversations from ${report.conditions.length} condition(s): ${report.conditions.join(', ')}\n`,
      );
      if (report.attributeSet) io.stdout.write(`attribute set ${report.attributeSet.name}: ${report.attributeSet.groups.join(', ')}\n`);
      for (const n of report.notes) io.stdout.write(`note: ${n}\n`);
    }
    return 0;
  },
};
