/**
 * Conversations for GFRC / GFRC2: sets with their attribute sets, JSONL import (checked completely,
 * written in one transaction) and export, the nugget annotation use cases (mark, edit, delete, with
 * overlaps refused) and the evaluations, which are recomputed from the stored nuggets on every call.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { ApiFailure } from '../../api/router';
import { DataError } from '../../core/errors';
import type { RVariant } from '../../core/fairness/gfrc';
import type { SetHeader } from '../../io/conversations/jsonlSchema';
import { parseConversationsJsonl, readConversationsJsonlFile, type ConversationsFile } from '../../io/conversations/readConversationsJsonl';
import { formatConversationsJsonl, formatGfrcInputFile } from '../../io/conversations/writeConversationsJsonl';
import {
  ConversationSetNameTakenError,
  ConversationsRepo,
  type ConversationRow,
  type AttributeSetDef,
  type ConversationSetRow,
  type GluedFirstWord,
  type NuggetRow,
  type NuggetSource,
  type TurnRow,
} from '../../store/conversationsRepo';
import { checkedAttributeSets, type AttributeSetInput } from './attributeSets';
import { gfrcInputOf, scoreConversation, type ConversationScores } from './conversationScores';
import { inferAttributeSets, planImport, type SetDefinition } from './importPlan';
import { checkLevelAndGroups, overlapMessage, overlapping, resolveMemberships, type MembershipInput } from './nuggetRules';
import { DEFAULT_SET_EVALUATION, evaluateSet, type SetEvaluation, type SetEvaluationOptions } from './setEvaluation';
import { conversationLayout, placeNugget, type TurnWord } from './wordPositions';

export const DEFAULT_L = 1000;
export const DEFAULT_L_MAX = 2;

export interface CreateSetRequest {
  name: string;
  description?: string | undefined;
  L?: number | undefined;
  lMax?: number | undefined;
  gluedFirstWord?: GluedFirstWord | undefined;
  attributeSets?: AttributeSetInput[] | undefined;
}

export interface ImportRequest {
  /** The set to add to; created when it does not exist. */
  setName: string;
  /** For a new set; otherwise the file's first line, otherwise 1000 / 2 / 'exclude'. */
  L?: number | undefined;
  lMax?: number | undefined;
  gluedFirstWord?: GluedFirstWord | undefined;
  /** For a new set; otherwise the file's first line, otherwise inferred from the nuggets' groups. */
  attributeSets?: AttributeSetInput[] | undefined;
  description?: string | undefined;
}

export interface ImportReport {
  setId: number;
  setName: string;
  createdSet: boolean;
  conversations: number;
  turns: number;
  nuggets: number;
  /** Where the new set's attribute sets came from. */
  attributeSetsFrom: 'request' | 'file' | 'inferred' | 'existing';
  notes: string[];
}

export interface NuggetView extends NuggetRow {
  text: string;
  wordStart: number;
}

export interface ConversationDetail {
  set: ConversationSetRow;
  conversation: ConversationRow;
  turns: (TurnRow & { systemTurn: number | null; words: TurnWord[] })[];
  nuggets: NuggetView[];
  totalWords: number;
  previousId: number | null;
  nextId: number | null;
}

export interface CreateNuggetRequest {
  conversationId: number;
  turn: number;
  start: number;
  end: number;
  level: number;
  groups?: MembershipInput | undefined;
  source?: NuggetSource | undefined;
}

export interface UpdateNuggetRequest {
  nuggetId: number;
  turn?: number | undefined;
  start?: number | undefined;
  end?: number | undefined;
  level?: number | undefined;
  /** Replaces all memberships. */
  groups?: MembershipInput | undefined;
}

export interface ExportedFile {
  fileName: string;
  mediaType: string;
  content: string;
}

export class ConversationsService {
  readonly repo: ConversationsRepo;

  constructor(readonly db: Database) {
    this.repo = new ConversationsRepo(db);
  }

  listSets(): ConversationSetRow[] {
    return this.repo.listSets();
  }

  getSet(id: number): ConversationSetRow {
    const set = this.repo.getSet(id);
    if (!set) throw new ApiFailure('not-found', `no conversation set with id ${id}`);
    return set;
  }

  findSet(name: string): ConversationSetRow | undefined {
    return this.repo.findSetByName(name);
  }

  createSet(req: CreateSetRequest): ConversationSetRow {
    const def = this.definition(req);
    return this.create(req.name, req.description, def);
  }

  updateSet(id: number, fields: { L?: number | undefined; lMax?: number | undefined; description?: string | undefined }): ConversationSetRow {
    const set = this.getSet(id);
    if (fields.lMax !== undefined) {
      const above = this.repo.nuggetsOfSet(id).filter((n) => n.level > fields.lMax!);
      if (above.length > 0) throw new ApiFailure('conflict', `${above.length} nugget(s) have a level above ${fields.lMax}; lower them first`, 'lMax');
    }
    this.repo.updateSet(set.id, { ...(fields.L !== undefined ? { L: fields.L } : {}), ...(fields.lMax !== undefined ? { lMax: fields.lMax } : {}), ...(fields.description !== undefined ? { description: fields.description } : {}) });
    return this.getSet(id);
  }

  deleteSet(id: number): boolean {
    return this.repo.deleteSet(id);
  }

  /** Adds an attribute set or replaces the one with its name; the number of groups of a set in use cannot change. */
  putAttributeSet(setId: number, input: AttributeSetInput): ConversationSetRow {
    const set = this.getSet(setId);
    let def: AttributeSetDef;
    try {
      def = checkedAttributeSets([input], 'attributeSet')[0]!;
    } catch (err) {
      if (err instanceof DataError) throw new DataError(err.reason, { field: err.field?.replace(/^attributeSet\[0\]/, 'attributeSet') });
      throw err;
    }
    const current = set.attributeSets.find((a) => a.name === def.name);
    if (current && current.groups.length !== def.groups.length) {
      const used = this.repo.nuggetsOfSet(setId).filter((n) => def.name in n.groups).length;
      if (used > 0) throw new ApiFailure('conflict', `${used} nugget(s) have ${current.groups.length}-group memberships for '${def.name}'; its number of groups cannot change`, 'attributeSet.groups');
    }
    this.repo.putAttributeSet(setId, def);
    return this.getSet(setId);
  }

  deleteAttributeSet(setId: number, name: string): ConversationSetRow {
    this.getSet(setId);
    if (!this.repo.deleteAttributeSet(setId, name)) throw new ApiFailure('not-found', `no attribute set '${name}' in this set`);
    return this.getSet(setId);
  }

  /** Imports JSONL text (an upload); see io/conversations/jsonlSchema.ts for the format. */
  importText(req: ImportRequest, file: { name: string; content: string }): ImportReport {
    return this.importParsed(req, parseConversationsJsonl(file.content, file.name));
  }

  importFile(req: ImportRequest, path: string): ImportReport {
    return this.importParsed(req, readConversationsJsonlFile(path));
  }

  exportJsonl(setId: number): ExportedFile {
    const set = this.getSet(setId);
    return { fileName: `${slug(set.name)}.jsonl`, mediaType: 'application/jsonl', content: this.jsonlOf(set) };
  }

  /** `eval gfrc2 --input` files: one conversation, or every conversation of the set. */
  exportGfrcInputs(target: { setId: number } | { conversationId: number }): ExportedFile[] {
    const conversations = 'setId' in target ? this.repo.listConversations(this.getSet(target.setId).id) : [this.conversation(target.conversationId)];
    return conversations.map((c) => {
      const set = this.getSet(c.setId);
      const { input } = gfrcInputOf(set, this.repo.nuggets(c.id));
      const content = formatGfrcInputFile({
        L: input.L,
        l_max: input.l_max,
        attribute_sets: set.attributeSets.map((a) => ({ name: a.name, kind: a.kind, measure: a.measure, target: a.target })),
        nuggets: input.nuggets.map((n) => ({ turn: n.turn, end: n.end, length: n.length, level: n.level, ...(Object.keys(n.groups).length ? { groups: n.groups } : {}) })),
      });
      return { fileName: `${slug(c.convId)}.gfrc2.json`, mediaType: 'application/json', content };
    });
  }

  getConversation(id: number): ConversationDetail {
    const conversation = this.conversation(id);
    const set = this.getSet(conversation.setId);
    const turns = this.repo.turns(id);
    const layout = conversationLayout(turns);
    const siblings = this.repo.listConversations(set.id).map((c) => c.id);
    const at = siblings.indexOf(id);
    return {
      set,
      conversation,
      turns: turns.map((t, i) => ({ ...t, systemTurn: layout[i]!.systemTurn, words: layout[i]!.words })),
      nuggets: this.repo.nuggets(id).map((n) => view(n, turns)),
      totalWords: layout.reduce((s, t) => s + t.words.length, 0),
      previousId: at > 0 ? siblings[at - 1]! : null,
      nextId: at >= 0 && at < siblings.length - 1 ? siblings[at + 1]! : null,
    };
  }

  createNugget(req: CreateNuggetRequest): NuggetView {
    const conversation = this.conversation(req.conversationId);
    const set = this.getSet(conversation.setId);
    const turns = this.repo.turns(conversation.id);
    return this.repo.transaction(() => {
      const input = this.checkedNugget(set, turns, this.repo.nuggets(conversation.id), undefined, req.turn, req.start, req.end, req.level, req.groups ?? {});
      return view(this.repo.insertNugget(conversation.id, { ...input, source: req.source ?? 'manual' }), turns);
    });
  }

  updateNugget(req: UpdateNuggetRequest): NuggetView {
    const current = this.repo.getNugget(req.nuggetId);
    if (!current) throw new ApiFailure('not-found', `no nugget with id ${req.nuggetId}`);
    const conversation = this.conversation(current.conversationId);
    const set = this.getSet(conversation.setId);
    const turns = this.repo.turns(conversation.id);
    return this.repo.transaction(() => {
      const input = this.checkedNugget(
        set,
        turns,
        this.repo.nuggets(conversation.id),
        current.id,
        req.turn ?? current.turn,
        req.start ?? current.start,
        req.end ?? current.end,
        req.level ?? current.level,
        req.groups ?? current.groups,
      );
      // Editing a suggestion accepts it; editing an imported nugget makes it a manual one.
      const source: NuggetSource = current.source === 'llm-suggested' ? 'accepted' : current.source === 'import' ? 'manual' : current.source;
      return view(this.repo.replaceNugget(current.id, { ...input, source }), turns);
    });
  }

  deleteNugget(id: number): boolean {
    if (!this.repo.getNugget(id)) throw new ApiFailure('not-found', `no nugget with id ${id}`);
    return this.repo.deleteNugget(id);
  }

  evaluateConversation(id: number, rVariant: RVariant = 'eq6'): ConversationScores {
    const conversation = this.conversation(id);
    return scoreConversation(this.getSet(conversation.setId), this.repo.nuggets(id), rVariant);
  }

  evaluateSet(setId: number, options: Partial<SetEvaluationOptions> = {}): SetEvaluation {
    const set = this.getSet(setId);
    const byConversation = new Map<number, NuggetRow[]>();
    for (const n of this.repo.nuggetsOfSet(setId)) {
      const list = byConversation.get(n.conversationId);
      if (list) list.push(n);
      else byConversation.set(n.conversationId, [n]);
    }
    const hash = createHash('sha256').update(this.jsonlOf(set)).digest('hex');
    return evaluateSet(set, this.repo.listConversations(setId), byConversation, { ...DEFAULT_SET_EVALUATION, ...options }, hash);
  }

  private conversation(id: number): ConversationRow {
    const c = this.repo.getConversation(id);
    if (!c) throw new ApiFailure('not-found', `no conversation with id ${id}`);
    return c;
  }

  private definition(req: { L?: number | undefined; lMax?: number | undefined; gluedFirstWord?: GluedFirstWord | undefined; attributeSets?: AttributeSetInput[] | undefined }): SetDefinition {
    return {
      L: req.L ?? DEFAULT_L,
      lMax: req.lMax ?? DEFAULT_L_MAX,
      gluedFirstWord: req.gluedFirstWord ?? 'exclude',
      attributeSets: checkedAttributeSets(req.attributeSets ?? []),
    };
  }

  private create(name: string, description: string | undefined, def: SetDefinition): ConversationSetRow {
    try {
      return this.repo.createSet({ name: name.trim(), description: description ?? '', ...def });
    } catch (err) {
      if (err instanceof ConversationSetNameTakenError) throw new ApiFailure('conflict', err.message, 'name');
      throw err;
    }
  }

  private importParsed(req: ImportRequest, file: ConversationsFile): ImportReport {
    const existing = this.repo.findSetByName(req.setName.trim());
    const notes: string[] = [];
    let def: SetDefinition;
    let from: ImportReport['attributeSetsFrom'];
    if (existing) {
      def = { L: existing.L, lMax: existing.lMax, gluedFirstWord: existing.gluedFirstWord, attributeSets: existing.attributeSets };
      from = 'existing';
      if (file.header || req.attributeSets || req.L !== undefined || req.lMax !== undefined) notes.push(`'${existing.name}' exists: its L, l_max and attribute sets were kept`);
    } else {
      const h: SetHeader | undefined = file.header;
      from = req.attributeSets ? 'request' : h ? 'file' : 'inferred';
      const sets = req.attributeSets ?? h?.attribute_sets ?? inferAttributeSets(file);
      try {
        def = this.definition({ L: req.L ?? h?.L, lMax: req.lMax ?? h?.l_max, gluedFirstWord: req.gluedFirstWord ?? h?.glued_first_word, attributeSets: sets });
      } catch (err) {
        if (err instanceof DataError && from === 'file') {
          throw new DataError(err.reason, { file: file.file, line: 1, field: err.field ? `conversation_set.${err.field.replace(/^attributeSets/, 'attribute_sets')}` : 'conversation_set' });
        }
        throw err;
      }
      if (from === 'inferred' && def.attributeSets.length) {
        notes.push(`attribute sets inferred from the nuggets (nominal, uniform target, JSD): ${def.attributeSets.map((a) => `${a.name} [${a.groups.join(', ')}]`).join('; ')}`);
      }
    }
    const plan = planImport(file, def, existing ? this.repo.convIdsOf(existing.id) : new Set());
    const set = this.repo.transaction(() => {
      const target = existing ?? this.create(req.setName, req.description ?? file.header?.description, def);
      for (const p of plan) {
        const id = this.repo.addConversation(target.id, p.conversation);
        for (const n of p.nuggets) this.repo.insertNugget(id, n);
      }
      return target;
    });
    return {
      setId: set.id,
      setName: set.name,
      createdSet: !existing,
      conversations: plan.length,
      turns: plan.reduce((s, p) => s + p.conversation.turns.length, 0),
      nuggets: plan.reduce((s, p) => s + p.nuggets.length, 0),
      attributeSetsFrom: from,
      notes,
    };
  }

  private checkedNugget(set: ConversationSetRow, turns: readonly TurnRow[], existing: readonly NuggetRow[], selfId: number | undefined, turn: number, start: number, end: number, level: number, groupsIn: MembershipInput) {
    const layout = conversationLayout(turns);
    const text = turns[turn]?.text ?? '';
    const place = placeNugget(layout, turn, start, end, set.gluedFirstWord, text.length);
    const clash = overlapping(existing, turn, place.start, place.end, selfId);
    if (clash) throw new ApiFailure('conflict', overlapMessage(clash, text), 'start');
    const groups = resolveMemberships(set.attributeSets, groupsIn);
    checkLevelAndGroups(set.attributeSets, set.lMax, level, groups);
    return { turn, ...place, level, groups };
  }

  private jsonlOf(set: ConversationSetRow): string {
    const header: SetHeader = {
      name: set.name,
      ...(set.description ? { description: set.description } : {}),
      L: set.L,
      l_max: set.lMax,
      glued_first_word: set.gluedFirstWord,
      attribute_sets: set.attributeSets.map((a) => ({ name: a.name, kind: a.kind, groups: a.groups, target: a.target, measure: a.measure })),
    };
    const turnsOf = this.repo.turnsOfSet(set.id);
    const nuggets = this.repo.nuggetsOfSet(set.id);
    const lines = this.repo.listConversations(set.id).map((c) => {
      const turns = turnsOf.get(c.id) ?? [];
      const mine = nuggets.filter((n) => n.conversationId === c.id);
      return {
        id: c.convId,
        topic: c.topic,
        run: c.run,
        turns: turns.map((t) => {
          const list = mine.filter((n) => n.turn === t.position);
          return {
            role: t.role,
            text: t.text,
            ...(list.length
              ? { nuggets: list.map((n) => ({ text: t.text.slice(n.start, n.end), start: n.start, end: n.end, level: n.level, groups: n.groups, source: n.source })) }
              : {}),
          };
        }),
        ...(Object.keys(c.attrs).length ? { attrs: c.attrs } : {}),
      };
    });
    return formatConversationsJsonl(header, lines);
  }
}

function view(n: NuggetRow, turns: readonly TurnRow[]): NuggetView {
  return { ...n, text: turns[n.turn]?.text.slice(n.start, n.end) ?? '', wordStart: n.wordEnd - n.wordLength + 1 };
}

function slug(name: string): string {
  return name.replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '') || 'conversations';
}
