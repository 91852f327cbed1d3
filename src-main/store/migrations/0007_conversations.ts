import type { Migration } from '../migration';

/**
 * Conversations for GFRC / GFRC2 (Sakai, Tao & Song 2025): conversation sets, their attribute sets,
 * conversations with ordered turns, and the nuggets marked in system turns.
 *
 * - `conversation_sets`: a named set with the reading budget L, the highest relevance level l_max
 *   and the word-counting rule for a nugget that starts a turn (the first word is glued to "S:";
 *   FairWeb-2 leaves it out of the nugget, fn. 11). The rule is fixed when the set is created,
 *   because stored word positions depend on it.
 * - `conversation_attribute_sets`: per set, ordered; group labels and the target distribution D*
 *   as JSON arrays of the same length, and the divergence (nominal: jsd; ordinal: nmd|rnod).
 * - `conversations`: `conv_id` is the id from the imported file, unique in the set; `topic` and
 *   `run` place it in the runs × topics table. `attrs` keeps provenance (e.g. the documents a RAG
 *   answer was generated from).
 * - `conversation_turns`: ordered by `position` (0-based); the text is stored as given and never
 *   edited, so the nuggets' stored word positions stay valid.
 * - `conversation_nuggets`: a character span [char_start, char_end) of one system turn's text,
 *   snapped to whole words, with the word positions computed from it the paper's way (word_end is
 *   wc over the whole conversation, 1-based; word_length the number of counted words) and the
 *   system-turn number (1-based) GFRC's GF groups by. `groups` is JSON {attribute set name:
 *   membership vector}. `source`: import | manual | llm-suggested (not scored until accepted) |
 *   accepted.
 *
 * Deleting a set deletes everything in it (ON DELETE CASCADE).
 */
export const migration0007: Migration = {
  version: 7,
  name: 'conversations',
  up(db) {
    db.exec(`
      CREATE TABLE conversation_sets (
        id               INTEGER PRIMARY KEY,
        name             TEXT NOT NULL UNIQUE,
        description      TEXT NOT NULL DEFAULT '',
        L                INTEGER NOT NULL CHECK (L >= 1),
        l_max            INTEGER NOT NULL CHECK (l_max >= 1),
        glued_first_word TEXT NOT NULL DEFAULT 'exclude' CHECK (glued_first_word IN ('exclude','include')),
        created_at       TEXT NOT NULL
      ) STRICT;

      CREATE TABLE conversation_attribute_sets (
        id       INTEGER PRIMARY KEY,
        set_id   INTEGER NOT NULL REFERENCES conversation_sets(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        name     TEXT NOT NULL,
        kind     TEXT NOT NULL CHECK (kind IN ('nominal','ordinal')),
        groups   TEXT NOT NULL,                -- JSON string[]: group labels, in order
        target   TEXT NOT NULL,                -- JSON number[]: D*, one value per group
        measure  TEXT NOT NULL CHECK (measure IN ('jsd','nmd','rnod')),
        UNIQUE (set_id, name)
      ) STRICT;

      CREATE TABLE conversations (
        id      INTEGER PRIMARY KEY,
        set_id  INTEGER NOT NULL REFERENCES conversation_sets(id) ON DELETE CASCADE,
        conv_id TEXT NOT NULL,
        topic   TEXT NOT NULL DEFAULT '',
        run     TEXT NOT NULL DEFAULT '',
        attrs   TEXT NOT NULL DEFAULT '{}',    -- JSON: provenance
        UNIQUE (set_id, conv_id)
      ) STRICT;
      CREATE INDEX conversations_by_run ON conversations(set_id, run, topic);

      CREATE TABLE conversation_turns (
        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        position        INTEGER NOT NULL CHECK (position >= 0),
        role            TEXT NOT NULL CHECK (role IN ('user','system')),
        text            TEXT NOT NULL,
        PRIMARY KEY (conversation_id, position)
      ) STRICT;

      CREATE TABLE conversation_nuggets (
        id              INTEGER PRIMARY KEY,
        conversation_id INTEGER NOT NULL,
        turn            INTEGER NOT NULL,      -- conversation_turns.position
        system_turn     INTEGER NOT NULL CHECK (system_turn >= 1),
        char_start      INTEGER NOT NULL CHECK (char_start >= 0),
        char_end        INTEGER NOT NULL,
        word_end        INTEGER NOT NULL CHECK (word_end >= 1),
        word_length     INTEGER NOT NULL CHECK (word_length >= 1),
        level           INTEGER NOT NULL CHECK (level >= 0),
        groups          TEXT NOT NULL DEFAULT '{}',
        source          TEXT NOT NULL CHECK (source IN ('import','manual','llm-suggested','accepted')),
        updated_at      TEXT NOT NULL,
        CHECK (char_end > char_start),
        FOREIGN KEY (conversation_id, turn) REFERENCES conversation_turns(conversation_id, position) ON DELETE CASCADE
      ) STRICT;
      CREATE INDEX conversation_nuggets_by_conversation ON conversation_nuggets(conversation_id, word_end);
    `);
  },
};
