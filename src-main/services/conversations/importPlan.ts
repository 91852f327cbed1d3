/**
 * Turns a parsed conversations JSONL file into rows ready to store, checking everything first so
 * that the import can write in one transaction or not at all. Nuggets named by text are found the
 * way `eval gfrc2` finds them (core's nuggetsFromConversation: first unclaimed occurrence, whole
 * words); nuggets given by character offsets are taken as they are. Either way the span is snapped to
 * whole words and counted by wordPositions.ts, so an imported nugget and one marked in the screen
 * get their word positions from the same code. Errors name file, line and field.
 */
import { DataError } from '../../core/errors';
import { nuggetsFromConversation } from '../../core/fairness/conversationNuggets';
import type { ConversationsFile } from '../../io/conversations/readConversationsJsonl';
import type { AttributeSetLine, NuggetLine } from '../../io/conversations/jsonlSchema';
import type { AttributeSetDef, ConversationInput, GluedFirstWord, NuggetInput } from '../../store/conversationsRepo';
import { checkLevelAndGroups, overlapMessage, resolveMemberships } from './nuggetRules';
import { conversationLayout, placeNugget } from './wordPositions';

export interface SetDefinition {
  L: number;
  lMax: number;
  gluedFirstWord: GluedFirstWord;
  attributeSets: AttributeSetDef[];
}

export interface PlannedConversation {
  line: number;
  conversation: ConversationInput;
  nuggets: NuggetInput[];
}

export function planImport(file: ConversationsFile, set: SetDefinition, existingIds: ReadonlySet<string>): PlannedConversation[] {
  const seen = new Map<string, number>();
  return file.conversations.map(({ line, conversation: c }) => {
    const at = (err: unknown): never => {
      if (err instanceof DataError) throw new DataError(err.reason, { file: file.file, line, ...(err.field !== undefined ? { field: err.field } : {}) });
      throw err;
    };
    if (existingIds.has(c.id)) at(new DataError(`conversation '${c.id}' is already in the set`, { field: 'id' }));
    const earlier = seen.get(c.id);
    if (earlier !== undefined) at(new DataError(`conversation '${c.id}' already appears on line ${earlier}`, { field: 'id' }));
    seen.set(c.id, line);
    try {
      return { line, conversation: toConversationInput(c), nuggets: planNuggets(c.turns, set) };
    } catch (err) {
      return at(err);
    }
  });
}

function toConversationInput(c: ConversationsFile['conversations'][number]['conversation']): ConversationInput {
  return { convId: c.id, topic: c.topic ?? '', run: c.run ?? '', attrs: c.attrs ?? {}, turns: c.turns.map((t) => ({ role: t.role, text: t.text })) };
}

function planNuggets(turns: readonly { role: 'user' | 'system'; text: string; nuggets?: NuggetLine[] | undefined }[], set: SetDefinition): NuggetInput[] {
  const layout = conversationLayout(turns);
  const spans = locateSpans(turns, layout);
  const placed: (NuggetInput & { field: string })[] = [];
  turns.forEach((turn, i) => {
    (turn.nuggets ?? []).forEach((n, j) => {
      const field = `turns[${i}].nuggets[${j}]`;
      const span = spans.get(`${i}/${j}`)!;
      const place = withField(field, (f) => (f === 'turn' ? '' : n.start === undefined ? 'text' : f === 'end' ? 'end' : 'start'), () =>
        placeNugget(layout, i, span.start, span.end, set.gluedFirstWord, turn.text.length),
      );
      const groups = withField(field, (f) => f ?? 'groups', () => {
        const resolved = resolveMemberships(set.attributeSets, n.groups);
        checkLevelAndGroups(set.attributeSets, set.lMax, n.level, resolved);
        return resolved;
      });
      const clash = placed.find((p) => p.turn === i && p.start < place.end && p.end > place.start);
      if (clash) throw new DataError(`${overlapMessage(clash, turn.text)} (${clash.field})`, { field });
      placed.push({ field, turn: i, ...place, level: n.level, groups, source: n.source ?? 'import' });
    });
  });
  return placed.map(({ field: _field, ...n }) => n);
}

/** Runs `fn`, placing a DataError's field under `field` (sub maps the inner field; '' for none). */
function withField<T>(field: string, sub: (inner: string | undefined) => string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    const inner = sub(err.field);
    throw new DataError(err.reason, { field: inner ? `${field}.${inner}` : field });
  }
}

/**
 * Character spans of every nugget, by `turn/nugget` index. Those without offsets are found by text
 * with core's locator, counting the glued first word in (the set's rule is applied afterwards, by
 * placeNugget); offsets given in the file are checked against the nugget's text.
 */
function locateSpans(turns: readonly { role: 'user' | 'system'; text: string; nuggets?: NuggetLine[] | undefined }[], layout: ReturnType<typeof conversationLayout>) {
  const spans = new Map<string, { start: number; end: number }>();
  const byText = turns.map((t) => ({ role: t.role, text: t.text, nuggets: (t.nuggets ?? []).filter((n) => n.start === undefined && n.end === undefined).map((n) => ({ text: n.text ?? '', level: n.level })) }));
  const indexOf = turns.map((t) => (t.nuggets ?? []).map((n, j) => ({ n, j })).filter(({ n }) => n.start === undefined && n.end === undefined).map(({ j }) => j));
  let located;
  try {
    located = nuggetsFromConversation(byText, { gluedFirstWord: 'include' });
  } catch (err) {
    if (err instanceof DataError && err.field) {
      // core names `conversation[i].nuggets[k]` among the text-located nuggets; name the file's own index.
      const m = /^conversation\[(\d+)\]\.nuggets(?:\[(\d+)\])?(.*)$/.exec(err.field);
      if (m) {
        const i = Number(m[1]);
        const j = m[2] === undefined ? '' : `[${indexOf[i]![Number(m[2])]}]`;
        throw new DataError(err.reason, { field: `turns[${i}].nuggets${j}${m[3]}` });
      }
    }
    throw err;
  }
  located.nuggets.forEach((n, k) => {
    const { turnIndex, nuggetIndex } = located.origins[k]!;
    const words = layout[turnIndex]!.words;
    const last = words.findIndex((w) => w.wc === n.end);
    const first = words[last - n.length + 1]!;
    spans.set(`${turnIndex}/${indexOf[turnIndex]![nuggetIndex]}`, { start: first.start, end: words[last]!.end });
  });
  turns.forEach((t, i) => {
    (t.nuggets ?? []).forEach((n, j) => {
      if (n.start === undefined && n.end === undefined) return;
      const field = `turns[${i}].nuggets[${j}]`;
      if (n.start === undefined || n.end === undefined) throw new DataError(`give both start and end, or neither`, { field: `${field}.${n.start === undefined ? 'start' : 'end'}` });
      if (n.start >= t.text.length) throw new DataError(`must be within the turn's ${t.text.length} characters (0 to ${t.text.length - 1}), got ${n.start}`, { field: `${field}.start` });
      if (n.end <= n.start || n.end > t.text.length) throw new DataError(`must be after start (${n.start}) and within the turn's ${t.text.length} characters, got ${n.end}`, { field: `${field}.end` });
      const squash = (s: string) => s.trim().replace(/\s+/gu, ' ');
      const slice = t.text.slice(n.start, n.end);
      // Offsets alone (no text): the nugget is those characters, which must hold a word.
      if (n.text === undefined) {
        if (squash(slice) === '') throw new DataError(`characters ${n.start}-${n.end} of the turn are white space only`, { field: `${field}.start` });
      } else if (squash(slice) !== squash(n.text)) throw new DataError(`does not match characters ${n.start}-${n.end} of the turn ('${clip(slice)}')`, { field: `${field}.text` });
      spans.set(`${i}/${j}`, { start: n.start, end: n.end });
    });
  });
  return spans;
}

/**
 * Attribute sets for a file that does not describe its own: one nominal set per name used in the
 * nuggets' groups, with the labels used (in order of first use) or G1…Gn for vectors of size n, a
 * uniform target and JSD. Mixing labels and vectors, or vectors of different sizes, is an error.
 */
export function inferAttributeSets(file: ConversationsFile): AttributeSetLine[] {
  const found = new Map<string, { labels: string[]; size?: number }>();
  for (const { line, conversation } of file.conversations) {
    conversation.turns.forEach((t, i) =>
      (t.nuggets ?? []).forEach((n, j) => {
        for (const [name, v] of Object.entries(n.groups ?? {})) {
          const field = `turns[${i}].nuggets[${j}].groups.${name}`;
          const entry = found.get(name) ?? { labels: [] };
          found.set(name, entry);
          const fail = (reason: string) => {
            throw new DataError(`${reason}; describe the attribute sets (first line {"conversation_set": …} or the import's attribute sets)`, { file: file.file, line, field });
          };
          if (typeof v === 'string') {
            if (entry.size !== undefined) fail(`'${name}' is given as vectors elsewhere and as a label here`);
            if (!entry.labels.includes(v)) entry.labels.push(v);
          } else {
            if (entry.labels.length > 0) fail(`'${name}' is given as labels elsewhere and as a vector here`);
            if (entry.size !== undefined && entry.size !== v.length) fail(`'${name}' vectors have ${entry.size} values elsewhere and ${v.length} here`);
            entry.size = v.length;
          }
        }
      }),
    );
  }
  return [...found.entries()].map(([name, e]) => {
    const groups = e.size !== undefined ? Array.from({ length: e.size }, (_, k) => `G${k + 1}`) : e.labels;
    if (groups.length < 2) {
      throw new DataError(`attribute set '${name}': only ${groups.length} group seen, cannot infer its groups; describe the attribute sets`, { file: file.file });
    }
    return { name, kind: 'nominal' as const, groups };
  });
}

function clip(s: string): string {
  const t = s.replace(/\s+/gu, ' ');
  return t.length > 50 ? `${t.slice(0, 47)}...` : t;
}
