/**
 * LaMP (and Fair-RAG's `{t}_user_dev_inputs.json` / `_outputs.json`, the same format):
 * - questions: `[{"id", "input", "profile": [{"id", ...task fields}]}]`, streamed item by item;
 * - outputs (optional): `{"task": "LaMP_2", "golds": [{"id", "output"}]}`.
 * Which file is which is read from the first character ('[' or '{').
 *
 * Each question becomes a query (text = input, answers = [gold output], task `LaMP-n` with its
 * metric preset, lampTasks.ts) whose candidates are its profile: a LaMP user's profile is the
 * per-query corpus Fair RAG ranks (fair-rag.md §1, §5). Each profile item becomes a document:
 * title = `title`, text = `text` | `abstract` | `description`, every other field (tag, score,
 * category, date, …) goes into attrs.
 *
 * Document ids. A document's id is its profile item id, because that is what Fair-RAG's relevance
 * mapping (`qid pid relevance_label`) refers to. Profile item ids can repeat across users: with
 * the same content (co-authors share a paper) it is one document listed in both candidate sets;
 * with different content the later occurrence (in file order) becomes `<question id>/<item id>`
 * (its attrs keep `profile_id`), and utility labels for (question id, item id) are attached to it
 * (services/collectionsImport.ts resolves them). An id repeated inside one profile with the same
 * content is listed once; with different content it is an error.
 */
import { DataError } from '../../core/errors';
import { Batcher } from './batcher';
import { describe, readId } from './columnMapping';
import { parseElement, streamJsonElements } from './jsonElements';
import { readLampOutputsHead } from './lampOutputsHead';
import { lampTaskByName, lampTaskByPrompt, lampTaskLabel, type LampTask } from './lampTasks';
import { quoteId, stableStringify, type DocumentRecord, type ImportSink, type JsonObject, type QueryRecord, type SourceStats } from './records';
import { checkedSink } from './ids';
import { LineCounter, type TextSource } from './source';
import type { NumberedLine } from '../lines';

const TEXT_FIELDS = ['text', 'abstract', 'description'];

export interface LampOptions {
  /** Task when no outputs file names it, e.g. 'LaMP-2'. */
  lampTask?: string | undefined;
  /**
   * A preview (collections.previewFile): stop after this many questions, hand each record to the sink as soon as it is
   * read, and leave the task unknown (null) rather than fail when neither the outputs nor the prompt name it.
   */
  previewLimit?: number | undefined;
}

interface Gold {
  output: string;
  line: number;
  used: boolean;
}

export async function importLamp(sources: readonly TextSource[], opts: LampOptions, sink: ImportSink, counter: LineCounter): Promise<SourceStats[]> {
  let questions: TextSource | undefined;
  let outputs: TextSource | undefined;
  for (const s of sources) {
    const c = await firstChar(s);
    if (c === '[') {
      if (questions) throw new DataError(`two LaMP question files (${questions.name} and this one)`, { file: s.name });
      questions = s;
    } else if (c === '{') {
      if (outputs) throw new DataError(`two LaMP output files (${outputs.name} and this one)`, { file: s.name });
      outputs = s;
    } else {
      throw new DataError(`expected LaMP questions (a JSON array) or outputs (a JSON object), found ${c === undefined ? 'an empty file' : JSON.stringify(c)}`, { file: s.name, line: 1 });
    }
  }
  if (!questions) throw new DataError('a LaMP import needs the questions file (a JSON array of {id, input, profile})', { field: 'files' });

  const stats: SourceStats[] = [];
  let task: LampTask | undefined = opts.lampTask ? lampTaskByName(opts.lampTask) : undefined;
  if (opts.lampTask && !task) throw new DataError(`'${opts.lampTask}' is not a LaMP task (LaMP-1 … LaMP-7)`, { field: 'lampTask' });
  const golds = new Map<string, Gold>();
  if (outputs) {
    const read = await readOutputs(outputs, counter, golds);
    if (read.task) {
      if (task && task.number !== read.task.number) {
        throw new DataError(`the outputs are ${lampTaskLabel(read.task)} but the import was asked for ${lampTaskLabel(task)}`, { file: outputs.name, line: read.taskLine, field: 'task' });
      }
      task = read.task;
    }
    stats.push({ name: outputs.name, role: 'lamp-outputs', rows: golds.size });
  }

  const file = questions.name;
  const preview = opts.previewLimit !== undefined;
  const docs = new Batcher<DocumentRecord>((b) => sink.documents(b), preview ? 1 : undefined);
  const queries = new Batcher<QueryRecord>((b) => sink.queries(b), preview ? 1 : undefined);
  /** Content key of every document emitted so far, by doc id. */
  const docKeys = new Map<string, string>();
  let rows = 0;
  const stream = streamJsonElements(counter.lines(questions), file);
  for await (const el of stream.elements) {
    if (stream.container() !== '[') throw new DataError('expected a JSON array of questions', { file, line: el.line });
    const line = el.line;
    const q = parseElement(el, file);
    if (q === null || typeof q !== 'object' || Array.isArray(q)) throw new DataError(`expected a question object {id, input, profile}, got ${describe(q)}`, { file, line });
    const o = q as JsonObject;
    const where = { file, line };
    const qid = readId(o.id, 'id', where);
    if (typeof o.input !== 'string') throw new DataError(o.input === undefined ? 'missing' : `expected a string, got ${describe(o.input)}`, { ...where, field: 'input' });
    if (!task) {
      task = lampTaskByPrompt(o.input);
      if (!task && !preview) throw new DataError('cannot tell the LaMP task: give the outputs file (it names the task) or choose the task', { ...where, field: 'input' });
    }
    if (!Array.isArray(o.profile)) throw new DataError(o.profile === undefined ? 'missing' : `expected a list of profile items, got ${describe(o.profile)}`, { ...where, field: 'profile' });
    const candidates: string[] = [];
    const inProfile = new Map<string, string>(); // item id → content key, within this profile
    for (const [j, item] of o.profile.entries()) {
      const field = `profile[${j}]`;
      if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new DataError(`expected a profile item object, got ${describe(item)}`, { ...where, field });
      const p = item as JsonObject;
      const pid = readId(p.id, `${field}.id`, where);
      const doc = profileDocument(p, `${field}`, where);
      const key = stableStringify(doc);
      const before = inProfile.get(pid);
      if (before !== undefined) {
        if (before === key) continue;
        throw new DataError(`profile item ${quoteId(pid)} appears twice in this profile with different content`, { ...where, field: `${field}.id` });
      }
      inProfile.set(pid, key);
      let docId = pid;
      const known = docKeys.get(pid);
      if (known !== undefined && known !== key) docId = `${qid}/${pid}`;
      if (!docKeys.has(docId)) {
        docKeys.set(docId, key);
        await docs.add({ docId, title: doc.title, text: doc.text, attrs: docId === pid ? doc.attrs : { ...doc.attrs, profile_id: pid }, file, line });
      }
      candidates.push(docId);
    }
    const gold = golds.get(qid);
    if (gold) gold.used = true;
    await queries.add({
      queryId: qid,
      text: o.input,
      answers: gold ? [gold.output] : [],
      task: task ? lampTaskLabel(task) : null,
      metric: task ? task.metric : null,
      subaspects: null,
      candidates,
      attrs: task ? { metrics: [...task.official], label_metric: task.labelMetric } : {},
      file,
      line,
    });
    rows++;
    if (preview && rows >= opts.previewLimit!) return [{ name: file, role: 'lamp-questions', rows }];
  }
  if (stream.container() === '{') throw new DataError('expected a JSON array of questions', { file });
  await docs.flush();
  await queries.flush();
  if (rows === 0) throw new DataError('no questions in the file', { file });
  for (const [id, g] of golds) {
    if (!g.used) throw new DataError(`gold output for ${quoteId(id)}, but no question has that id`, { file: outputs!.name, line: g.line, field: 'golds.id' });
  }
  stats.unshift({ name: file, role: 'lamp-questions', rows });
  return stats;
}

/**
 * A LaMP file as a preview shows it (collections.previewFile, issue 36 item 2): at most `max` questions the importer
 * accepted, each written back as one JSON line (`{"id", "input", "task", "profile": <items>}`), or an outputs file's
 * task and first golds (read incrementally: a head cut inside `golds` shows the golds before the cut). A file that
 * does not parse as LaMP is refused naming its line, quoting none of it; a bad
 * question after good ones ends the preview there.
 */
export async function previewLamp(source: TextSource, opts: LampOptions, max: number): Promise<string[]> {
  const cut = (t: string): string => (t.length > 300 ? `${t.slice(0, 300)}…` : t);
  if ((await firstChar(source)) === '{') {
    // Read incrementally (lampOutputsHead.ts): an upload's head is cut inside `golds`, and a path preview need not
    // parse a large golds array whole.
    const head = await readLampOutputsHead(source, max);
    const out = head.task ? [JSON.stringify({ task: lampTaskLabel(head.task) })] : [];
    for (const g of head.golds) {
      if (out.length >= max) break;
      out.push(JSON.stringify({ id: g.id, output: cut(g.output) }));
    }
    return out;
  }
  const out: string[] = [];
  const sink = checkedSink({
    documents: () => {},
    queries: (b) => void out.push(...b.map((q) => JSON.stringify({ id: q.queryId, input: cut(q.text), task: q.task, profile: q.candidates?.length ?? 0 }))),
    judgments: () => {},
  });
  try {
    await importLamp([source], { ...opts, previewLimit: max }, sink, new LineCounter());
  } catch (err) {
    // Questions read before a bad one (or before the end of a file cut short, as an upload's head is) are shown.
    if (err instanceof DataError && out.length > 0) return out;
    throw err;
  }
  return out;
}

function profileDocument(p: JsonObject, field: string, where: { file: string; line: number }): { title: string; text: string; attrs: JsonObject } {
  const textField = TEXT_FIELDS.find((f) => p[f] !== undefined && p[f] !== null);
  const attrs: JsonObject = {};
  for (const [k, v] of Object.entries(p)) if (k !== 'id' && k !== 'title' && k !== textField) attrs[k] = v;
  const str = (v: unknown, f: string): string => {
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return String(v);
    throw new DataError(`expected a string, got ${describe(v)}`, { ...where, field: `${field}.${f}` });
  };
  return { title: str(p.title, 'title'), text: textField ? str(p[textField], textField) : '', attrs };
}

async function firstChar(source: TextSource): Promise<string | undefined> {
  for await (const { text } of source.lines()) {
    const t = text.trim();
    if (t !== '') return t[0];
  }
  return undefined;
}

async function readOutputs(source: TextSource, counter: LineCounter, golds: Map<string, Gold>): Promise<{ task?: LampTask; taskLine?: number }> {
  const file = source.name;
  const stream = streamJsonElements(counter.lines(source), file);
  let task: LampTask | undefined;
  let taskLine: number | undefined;
  let sawGolds = false;
  for await (const el of stream.elements) {
    const member = parseElement(el, file, true) as JsonObject;
    const [key] = Object.keys(member);
    if (key === 'task') {
      const name = member.task;
      task = typeof name === 'string' ? lampTaskByName(name) : undefined;
      if (!task) throw new DataError(`not a LaMP task: ${describe(name)}`, { file, line: el.line, field: 'task' });
      taskLine = el.line;
    } else if (key === 'golds') {
      sawGolds = true;
      if (!Array.isArray(member.golds)) throw new DataError(`expected a list of {id, output}, got ${describe(member.golds)}`, { file, line: el.line, field: 'golds' });
      // Line of each gold: split the member's array text again, numbering from the member's line.
      const colon = el.text.indexOf(':', el.text.indexOf('"', 1) + 1);
      const arrayText = ' '.repeat(colon + 1) + el.text.slice(colon + 1);
      const lines: NumberedLine[] = arrayText.split('\n').map((text, i) => ({ line: el.line + i, text }));
      const items = streamJsonElements(
        (async function* () {
          yield* lines;
        })(),
        file,
      );
      let i = 0;
      for await (const g of items.elements) {
        const value = member.golds[i];
        const where = { file, line: g.line };
        if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DataError(`expected {id, output}, got ${describe(value)}`, { ...where, field: `golds[${i}]` });
        const id = readId((value as JsonObject).id, `golds[${i}].id`, where);
        const output = (value as JsonObject).output;
        if (typeof output !== 'string') throw new DataError(output === undefined ? 'missing' : `expected a string, got ${describe(output)}`, { ...where, field: `golds[${i}].output` });
        if (golds.has(id)) throw new DataError(`duplicate gold output for ${quoteId(id)} (first on line ${golds.get(id)!.line})`, { ...where, field: `golds[${i}].id` });
        golds.set(id, { output, line: g.line, used: false });
        i++;
      }
    }
  }
  if (stream.container() !== '{') throw new DataError('expected LaMP outputs: a JSON object {task, golds}', { file });
  if (!sawGolds) throw new DataError('missing', { file, field: 'golds' });
  return { ...(task ? { task } : {}), ...(taskLine !== undefined ? { taskLine } : {}) };
}
