import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0007 } from '../../src-main/store/migrations/0007_conversations';
import { openWorkspace } from '../../src-main/store/workspace';

function fresh(): Database.Database {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migration0007.up(db);
  return db;
}

describe('migration 0007 conversations', () => {
  it('creates sets, attribute sets, conversations, turns and nuggets, deleting them in cascade', () => {
    const db = fresh();
    db.prepare(`INSERT INTO conversation_sets(id, name, L, l_max, created_at) VALUES (1, 's', 1000, 2, 'now')`).run();
    expect(db.prepare(`SELECT glued_first_word, description FROM conversation_sets`).get()).toEqual({ glued_first_word: 'exclude', description: '' });
    db.prepare(`INSERT INTO conversation_attribute_sets(set_id, position, name, kind, groups, target, measure) VALUES (1, 0, 'G', 'nominal', '["a","b"]', '[0.5,0.5]', 'jsd')`).run();
    db.prepare(`INSERT INTO conversations(id, set_id, conv_id, topic, run) VALUES (10, 1, 'c1', 't', 'r')`).run();
    db.prepare(`INSERT INTO conversation_turns(conversation_id, position, role, text) VALUES (10, 0, 'user', 'q'), (10, 1, 'system', 'a b c')`).run();
    const nugget = db.prepare(
      `INSERT INTO conversation_nuggets(conversation_id, turn, system_turn, char_start, char_end, word_end, word_length, level, groups, source, updated_at)
       VALUES (10, ?, 1, ?, ?, 3, 1, 2, '{}', ?, 'now')`,
    );
    nugget.run(1, 2, 3, 'manual');
    expect(() => nugget.run(5, 2, 3, 'manual')).toThrow(/FOREIGN KEY/); // no turn 5
    expect(() => nugget.run(1, 3, 3, 'manual')).toThrow(/CHECK/); // empty span
    expect(() => nugget.run(1, 2, 3, 'guess')).toThrow(/CHECK/);
    expect(() => db.prepare(`INSERT INTO conversations(set_id, conv_id) VALUES (1, 'c1')`).run()).toThrow(/UNIQUE/);
    expect(() => db.prepare(`INSERT INTO conversation_turns(conversation_id, position, role, text) VALUES (10, 2, 'bot', '')`).run()).toThrow(/CHECK/);
    expect(() => db.prepare(`INSERT INTO conversation_sets(name, L, l_max, created_at) VALUES ('z', 0, 2, 'now')`).run()).toThrow(/CHECK/);

    db.prepare(`DELETE FROM conversation_sets WHERE id = 1`).run();
    for (const t of ['conversation_attribute_sets', 'conversations', 'conversation_turns', 'conversation_nuggets']) {
      expect(db.prepare(`SELECT count(*) AS n FROM ${t}`).get()).toEqual({ n: 0 });
    }
  });

  it('is applied as version 7 after the earlier migrations', () => {
    const ws = openWorkspace(':memory:');
    expect(ws.schemaVersion).toBeGreaterThanOrEqual(7);
    expect(ws.db.prepare(`SELECT name FROM sqlite_master WHERE name = 'conversation_nuggets'`).get()).toEqual({ name: 'conversation_nuggets' });
    ws.close();
  });
});
