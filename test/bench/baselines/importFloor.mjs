/**
 * The floor SQLite sets for the one-line corpus import (importMemory.bench.ts, issue 25 item 3): a
 * bare node process that stores the line's text as one document of a workspace — the same
 * `documents` table, FTS5 index and trigger, pragmas (WAL, synchronous FULL, foreign keys) — with
 * nothing of Fairground's around it: no CLI, no parsing or validation, no staging of ids, no content
 * hash. The bench creates the workspace with the product's store code and passes its path.
 *
 * Usage: node importFloor.mjs MODE WORKSPACE FILE
 *   bare    only `require('better-sqlite3')`: the process's own footprint.
 *   bind    the obvious way: the file read whole, one INSERT binding the text's bytes (the JSON
 *           string's bytes between `"text":"` and the line's closing `"}`; the bench's line has no
 *           escapes, checked) with CAST(? AS TEXT).
 *   pieces  the cheapest way measured: the text read from the file 64 KiB at a time into a TEMP
 *           table, then one INSERT whose text is concat() of the pieces inside SQLite, the page
 *           caches at 1 MiB (what the import's publish does; binding, group_concat, string_agg or
 *           INSERT … SELECT of a whole staged text each hold one copy more).
 *   pieces-nofts  as pieces with the full-text trigger dropped first (this file's copy only): the
 *           share of FTS5 (its pending term lists) in the floor.
 * Prints the stored text's length.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const [mode, workspace, file] = process.argv.slice(2);
const Database = require('better-sqlite3');
if (mode === 'bare') process.exit(0);

const db = new Database(workspace);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
if (mode === 'pieces-nofts') db.exec('DROP TRIGGER documents_fts_after_insert');
const collection = db.prepare("INSERT INTO collections(name, description, content_hash, created_at) VALUES ('floor', '', '', '2026-01-01T00:00:00Z') RETURNING id").pluck().get();

/** Where the text's bytes are in the one-line file {"id":"x","text":"…"}\n. */
const fd = openSync(file, 'r');
const size = fstatSync(fd).size;
const head = Buffer.alloc(64);
readSync(fd, head, 0, head.length, 0);
const start = head.indexOf('"text":"') + 8;
const end = size - 3; // before `"}\n`
if (start < 8 || end <= start) throw new Error(`${file}: not a one-line {"id", "text"} corpus`);

if (mode === 'bind') {
  const line = readFileSync(file);
  const text = line.subarray(start, end);
  if (text.includes(0x5c) || text.includes(0x22)) throw new Error(`${file}: the text has escapes; this baseline binds its bytes as they are`);
  db.transaction(() => {
    db.prepare("INSERT INTO documents(collection_id, doc_id, title, text, attrs) VALUES (?, 'x', '', CAST(? AS TEXT), '{}')").run(collection, text);
  })();
} else if (mode === 'pieces' || mode === 'pieces-nofts') {
  db.pragma('main.cache_size = -1024');
  db.pragma('temp.cache_size = -1024');
  db.exec('CREATE TEMP TABLE pieces (seq INTEGER PRIMARY KEY, piece TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO pieces VALUES (?, CAST(? AS TEXT))');
  const buf = Buffer.allocUnsafe(1 << 16);
  let n = 0;
  for (let at = start; at < end; ) {
    const got = readSync(fd, buf, 0, Math.min(buf.length, end - at), at);
    if (buf.subarray(0, got).includes(0x5c)) throw new Error(`${file}: the text has escapes; this baseline stores its bytes as they are`);
    insert.run(n++, buf.subarray(0, got));
    at += got;
  }
  // Pieces of 64 KiB: a line of up to 64 MiB takes at most 1,024 arguments; SQLite allows 1,000 per
  // function, so nest (as the import's staging does).
  let parts = Array.from({ length: n }, (_, seq) => `(SELECT piece FROM pieces WHERE seq = ${seq})`);
  while (parts.length > 1) {
    const next = [];
    for (let i = 0; i < parts.length; i += 1000) next.push(`concat(${parts.slice(i, i + 1000).join(', ')})`);
    parts = next;
  }
  db.transaction(() => {
    db.prepare(`INSERT INTO documents(collection_id, doc_id, title, text, attrs) VALUES (?, 'x', '', ${parts[0] ?? "''"}, '{}')`).run(collection);
  })();
} else {
  throw new Error(`unknown mode ${mode}`);
}
closeSync(fd);
// octet_length() reads the column's size from its header, not the text.
const stored = db.prepare('SELECT octet_length(text) FROM documents WHERE collection_id = ?').pluck().get(collection);
db.close();
if (stored !== end - start) throw new Error(`stored ${stored} bytes, expected ${end - start}`);
process.stdout.write(`${stored}\n`);
