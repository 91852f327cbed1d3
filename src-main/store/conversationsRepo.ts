/**
 * Conversation sets, attribute sets, conversations, turns and nuggets (migration 0007): the only code
 * that writes them. It stores what it is given; checking spans, word positions and memberships is the
 * conversations service's job (services/conversations), which calls these inside one transaction.
 */
import type { Database } from 'better-sqlite3';
import { canonicalJson } from './canonicalJson';

export type GluedFirstWord = 'exclude' | 'include';
export type NuggetSource = 'import' | 'manual' | 'llm-suggested' | 'accepted';
export type TurnRole = 'user' | 'system';

export interface AttributeSetDef {
  name: string;
  kind: 'nominal' | 'ordinal';
  /** Group labels, in order (ordinal sets: lowest first). */
  groups: string[];
  /** D*, one probability per group. */
  target: number[];
  measure: 'jsd' | 'nmd' | 'rnod';
}

export interface ConversationSetInput {
  name: string;
  description?: string;
  L: number;
  lMax: number;
  gluedFirstWord: GluedFirstWord;
  attributeSets: AttributeSetDef[];
}

export interface ConversationSetRow {
  id: number;
  name: string;
  description: string;
  L: number;
  lMax: number;
  gluedFirstWord: GluedFirstWord;
  createdAt: string;
  attributeSets: AttributeSetDef[];
  counts: { conversations: number; nuggets: number; runs: number; topics: number };
}

export interface ConversationRow {
  id: number;
  setId: number;
  convId: string;
  topic: string;
  run: string;
  attrs: Record<string, unknown>;
  counts: { turns: number; nuggets: number };
}

export interface TurnRow {
  position: number;
  role: TurnRole;
  text: string;
}

/** What the service has computed for a nugget before it is stored. */
export interface NuggetInput {
  turn: number;
  systemTurn: number;
  start: number;
  end: number;
  wordEnd: number;
  wordLength: number;
  level: number;
  groups: Record<string, number[]>;
  source: NuggetSource;
}

export interface NuggetRow extends NuggetInput {
  id: number;
  conversationId: number;
  updatedAt: string;
}

export interface ConversationInput {
  convId: string;
  topic: string;
  run: string;
  attrs: Record<string, unknown>;
  turns: { role: TurnRole; text: string }[];
}

export class ConversationSetNameTakenError extends Error {
  constructor(readonly setName: string) {
    super(`a conversation set named '${setName}' already exists`);
    this.name = 'ConversationSetNameTakenError';
  }
}

interface SetDbRow {
  id: number;
  name: string;
  description: string;
  L: number;
  l_max: number;
  glued_first_word: GluedFirstWord;
  created_at: string;
  conversations: number;
  nuggets: number;
  runs: number;
  topics: number;
}

interface AttrDbRow {
  set_id: number;
  name: string;
  kind: AttributeSetDef['kind'];
  groups: string;
  target: string;
  measure: AttributeSetDef['measure'];
}

interface ConversationDbRow {
  id: number;
  set_id: number;
  conv_id: string;
  topic: string;
  run: string;
  attrs: string;
  turns: number;
  nuggets: number;
}

interface NuggetDbRow {
  id: number;
  conversation_id: number;
  turn: number;
  system_turn: number;
  char_start: number;
  char_end: number;
  word_end: number;
  word_length: number;
  level: number;
  groups: string;
  source: NuggetSource;
  updated_at: string;
}

const SET_SELECT = `
  SELECT s.*,
    (SELECT count(*) FROM conversations c WHERE c.set_id = s.id) AS conversations,
    (SELECT count(*) FROM conversation_nuggets n JOIN conversations c ON c.id = n.conversation_id WHERE c.set_id = s.id) AS nuggets,
    (SELECT count(DISTINCT run) FROM conversations c WHERE c.set_id = s.id) AS runs,
    (SELECT count(DISTINCT topic) FROM conversations c WHERE c.set_id = s.id) AS topics
  FROM conversation_sets s`;

const CONVERSATION_SELECT = `
  SELECT c.*,
    (SELECT count(*) FROM conversation_turns t WHERE t.conversation_id = c.id) AS turns,
    (SELECT count(*) FROM conversation_nuggets n WHERE n.conversation_id = c.id) AS nuggets
  FROM conversations c`;

export class ConversationsRepo {
  constructor(private readonly db: Database) {}

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  createSet(input: ConversationSetInput, now = new Date()): ConversationSetRow {
    if (this.findSetByName(input.name)) throw new ConversationSetNameTakenError(input.name);
    return this.transaction(() => {
      const info = this.db
        .prepare(`INSERT INTO conversation_sets(name, description, L, l_max, glued_first_word, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
        .run(input.name, input.description ?? '', input.L, input.lMax, input.gluedFirstWord, now.toISOString());
      const id = Number(info.lastInsertRowid);
      for (const a of input.attributeSets) this.putAttributeSet(id, a);
      return this.getSet(id)!;
    });
  }

  listSets(): ConversationSetRow[] {
    const rows = this.db.prepare(`${SET_SELECT} ORDER BY s.name`).all() as SetDbRow[];
    const attrs = this.attributeRows();
    return rows.map((r) => toSet(r, attrs.filter((a) => a.set_id === r.id)));
  }

  getSet(id: number): ConversationSetRow | undefined {
    const row = this.db.prepare(`${SET_SELECT} WHERE s.id = ?`).get(id) as SetDbRow | undefined;
    return row ? toSet(row, this.attributeRows(id)) : undefined;
  }

  findSetByName(name: string): ConversationSetRow | undefined {
    const row = this.db.prepare(`SELECT id FROM conversation_sets WHERE name = ?`).get(name) as { id: number } | undefined;
    return row ? this.getSet(row.id) : undefined;
  }

  updateSet(id: number, fields: { L?: number; lMax?: number; description?: string }): void {
    if (fields.L !== undefined) this.db.prepare(`UPDATE conversation_sets SET L = ? WHERE id = ?`).run(fields.L, id);
    if (fields.lMax !== undefined) this.db.prepare(`UPDATE conversation_sets SET l_max = ? WHERE id = ?`).run(fields.lMax, id);
    if (fields.description !== undefined) this.db.prepare(`UPDATE conversation_sets SET description = ? WHERE id = ?`).run(fields.description, id);
  }

  deleteSet(id: number): boolean {
    return this.db.prepare(`DELETE FROM conversation_sets WHERE id = ?`).run(id).changes > 0;
  }

  /** Adds the attribute set, or replaces the one with the same name (keeping its place in the order). */
  putAttributeSet(setId: number, def: AttributeSetDef): void {
    const existing = this.db.prepare(`SELECT id FROM conversation_attribute_sets WHERE set_id = ? AND name = ?`).get(setId, def.name) as { id: number } | undefined;
    if (existing) {
      this.db
        .prepare(`UPDATE conversation_attribute_sets SET kind = ?, groups = ?, target = ?, measure = ? WHERE id = ?`)
        .run(def.kind, canonicalJson(def.groups), canonicalJson(def.target), def.measure, existing.id);
      return;
    }
    const next = this.db.prepare(`SELECT coalesce(max(position), -1) + 1 AS p FROM conversation_attribute_sets WHERE set_id = ?`).get(setId) as { p: number };
    this.db
      .prepare(`INSERT INTO conversation_attribute_sets(set_id, position, name, kind, groups, target, measure) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(setId, next.p, def.name, def.kind, canonicalJson(def.groups), canonicalJson(def.target), def.measure);
  }

  /** Removes the attribute set and every nugget's membership vector for it. */
  deleteAttributeSet(setId: number, name: string): boolean {
    return this.transaction(() => {
      const removed = this.db.prepare(`DELETE FROM conversation_attribute_sets WHERE set_id = ? AND name = ?`).run(setId, name).changes > 0;
      if (!removed) return false;
      const update = this.db.prepare(`UPDATE conversation_nuggets SET groups = ? WHERE id = ?`);
      for (const n of this.nuggetsOfSet(setId)) {
        if (!(name in n.groups)) continue;
        const groups = { ...n.groups };
        delete groups[name];
        update.run(canonicalJson(groups), n.id);
      }
      return true;
    });
  }

  addConversation(setId: number, input: ConversationInput): number {
    const info = this.db
      .prepare(`INSERT INTO conversations(set_id, conv_id, topic, run, attrs) VALUES (?, ?, ?, ?, ?)`)
      .run(setId, input.convId, input.topic, input.run, canonicalJson(input.attrs));
    const id = Number(info.lastInsertRowid);
    const turn = this.db.prepare(`INSERT INTO conversation_turns(conversation_id, position, role, text) VALUES (?, ?, ?, ?)`);
    input.turns.forEach((t, i) => turn.run(id, i, t.role, t.text));
    return id;
  }

  listConversations(setId: number): ConversationRow[] {
    const rows = this.db.prepare(`${CONVERSATION_SELECT} WHERE c.set_id = ? ORDER BY c.run, c.topic, c.conv_id`).all(setId) as ConversationDbRow[];
    return rows.map(toConversation);
  }

  getConversation(id: number): ConversationRow | undefined {
    const row = this.db.prepare(`${CONVERSATION_SELECT} WHERE c.id = ?`).get(id) as ConversationDbRow | undefined;
    return row ? toConversation(row) : undefined;
  }

  convIdsOf(setId: number): Set<string> {
    const rows = this.db.prepare(`SELECT conv_id FROM conversations WHERE set_id = ?`).all(setId) as { conv_id: string }[];
    return new Set(rows.map((r) => r.conv_id));
  }

  turns(conversationId: number): TurnRow[] {
    return this.db.prepare(`SELECT position, role, text FROM conversation_turns WHERE conversation_id = ? ORDER BY position`).all(conversationId) as TurnRow[];
  }

  /** Turns of every conversation of a set, by conversation id. */
  turnsOfSet(setId: number): Map<number, TurnRow[]> {
    const rows = this.db
      .prepare(
        `SELECT t.conversation_id AS cid, t.position, t.role, t.text FROM conversation_turns t JOIN conversations c ON c.id = t.conversation_id
         WHERE c.set_id = ? ORDER BY t.conversation_id, t.position`,
      )
      .all(setId) as (TurnRow & { cid: number })[];
    const out = new Map<number, TurnRow[]>();
    for (const { cid, ...t } of rows) {
      const list = out.get(cid);
      if (list) list.push(t);
      else out.set(cid, [t]);
    }
    return out;
  }

  nuggets(conversationId: number): NuggetRow[] {
    const rows = this.db.prepare(`SELECT * FROM conversation_nuggets WHERE conversation_id = ? ORDER BY turn, char_start`).all(conversationId) as NuggetDbRow[];
    return rows.map(toNugget);
  }

  nuggetsOfSet(setId: number): NuggetRow[] {
    const rows = this.db
      .prepare(
        `SELECT n.* FROM conversation_nuggets n JOIN conversations c ON c.id = n.conversation_id WHERE c.set_id = ? ORDER BY n.conversation_id, n.turn, n.char_start`,
      )
      .all(setId) as NuggetDbRow[];
    return rows.map(toNugget);
  }

  getNugget(id: number): NuggetRow | undefined {
    const row = this.db.prepare(`SELECT * FROM conversation_nuggets WHERE id = ?`).get(id) as NuggetDbRow | undefined;
    return row ? toNugget(row) : undefined;
  }

  insertNugget(conversationId: number, n: NuggetInput, now = new Date()): NuggetRow {
    const info = this.db
      .prepare(
        `INSERT INTO conversation_nuggets(conversation_id, turn, system_turn, char_start, char_end, word_end, word_length, level, groups, source, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(conversationId, n.turn, n.systemTurn, n.start, n.end, n.wordEnd, n.wordLength, n.level, canonicalJson(n.groups), n.source, now.toISOString());
    return this.getNugget(Number(info.lastInsertRowid))!;
  }

  /** Replaces everything but the conversation of a nugget. */
  replaceNugget(id: number, n: NuggetInput, now = new Date()): NuggetRow {
    this.db
      .prepare(
        `UPDATE conversation_nuggets SET turn = ?, system_turn = ?, char_start = ?, char_end = ?, word_end = ?, word_length = ?, level = ?, groups = ?, source = ?, updated_at = ?
         WHERE id = ?`,
      )
      .run(n.turn, n.systemTurn, n.start, n.end, n.wordEnd, n.wordLength, n.level, canonicalJson(n.groups), n.source, now.toISOString(), id);
    return this.getNugget(id)!;
  }

  deleteNugget(id: number): boolean {
    return this.db.prepare(`DELETE FROM conversation_nuggets WHERE id = ?`).run(id).changes > 0;
  }

  private attributeRows(setId?: number): AttrDbRow[] {
    const sql = `SELECT set_id, name, kind, groups, target, measure FROM conversation_attribute_sets ${setId === undefined ? '' : 'WHERE set_id = ?'} ORDER BY set_id, position`;
    return (setId === undefined ? this.db.prepare(sql).all() : this.db.prepare(sql).all(setId)) as AttrDbRow[];
  }
}

function toSet(r: SetDbRow, attrs: AttrDbRow[]): ConversationSetRow {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    L: r.L,
    lMax: r.l_max,
    gluedFirstWord: r.glued_first_word,
    createdAt: r.created_at,
    attributeSets: attrs.map((a) => ({ name: a.name, kind: a.kind, groups: JSON.parse(a.groups) as string[], target: JSON.parse(a.target) as number[], measure: a.measure })),
    counts: { conversations: r.conversations, nuggets: r.nuggets, runs: r.runs, topics: r.topics },
  };
}

function toConversation(r: ConversationDbRow): ConversationRow {
  return {
    id: r.id,
    setId: r.set_id,
    convId: r.conv_id,
    topic: r.topic,
    run: r.run,
    attrs: JSON.parse(r.attrs) as Record<string, unknown>,
    counts: { turns: r.turns, nuggets: r.nuggets },
  };
}

function toNugget(r: NuggetDbRow): NuggetRow {
  return {
    id: r.id,
    conversationId: r.conversation_id,
    turn: r.turn,
    systemTurn: r.system_turn,
    start: r.char_start,
    end: r.char_end,
    wordEnd: r.word_end,
    wordLength: r.word_length,
    level: r.level,
    groups: JSON.parse(r.groups) as Record<string, number[]>,
    source: r.source,
    updatedAt: r.updated_at,
  };
}
