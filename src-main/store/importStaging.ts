/**
 * Where an import puts what it has parsed before anything touches the collection: TEMP tables of
 * this connection (invisible to other connections, gone when it closes — SQLite unlinks its temp
 * files at once, so a killed process leaves nothing behind). Writing them takes no lock on the
 * workspace file: parsing, validating and staging run while other processes write. Committing
 * (services/collectionsImport.ts) takes short transactions on the workspace — and an import stays
 * all or nothing, with memory flat for large files.
 *
 * Staging also catches ids that repeat within the import (in one file or across its files),
 * naming both places, and prepares what the publish would otherwise compute under the write lock:
 * content hashes of a new collection (contentHashAsNew, documentsHashUpTo) and set-based document
 * inserts (publishDocuments, insertDocumentRange) instead of one INSERT per row.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Database, Statement, Transaction } from 'better-sqlite3';
import { DataError } from '../core/errors';
import { CONTENT_HASH_VERSION } from './collectionHash';
import { quoteId, type AddCounts, type DocumentInput, type DocumentText, type JudgmentInput, type JudgmentText, type QueryInput, type QueryText } from './collectionTypes';
import { documentText, judgmentText, queryText } from './collectionsRepo';

let sequence = 0;

interface Located {
  file: string | null;
  line: number | null;
}

export class ImportStaging {
  private readonly t: { docs: string; queries: string; judgments: string; pieces: string };
  private dropped = false;
  private longTextCount = 0;
  private readonly pieceCount = new Map<number, number>();
  /** temp.cache_size before the first long text lowered it (restored by drop). */
  private tempCacheSize: number | null = null;
  private insertPieceStmt: Statement | undefined;
  private appendPiece: Transaction<(id: number, seq: number, piece: string | Buffer) => void> | undefined;

  constructor(private readonly db: Database) {
    const p = `fg_stage_${process.pid}_${++sequence}`;
    this.t = { docs: `temp.${p}_docs`, queries: `temp.${p}_queries`, judgments: `temp.${p}_judgments`, pieces: `temp.${p}_pieces` };
    // `long`: the text is in `pieces` (text_id = long, in seq order) and `text` is '' — a text of
    // more than a megabyte, read from its file in pieces (io/importers/longText.ts), never whole in JS.
    db.exec(`
      CREATE TABLE ${this.t.docs} (doc_id TEXT PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL, attrs TEXT NOT NULL, file TEXT, line INTEGER, long INTEGER);
      CREATE TABLE ${this.t.pieces} (text_id INTEGER NOT NULL, seq INTEGER NOT NULL, piece TEXT NOT NULL, PRIMARY KEY (text_id, seq));
      CREATE TABLE ${this.t.queries} (query_id TEXT PRIMARY KEY, text TEXT NOT NULL, answers TEXT NOT NULL, task TEXT, metric TEXT, subaspects TEXT, candidates TEXT, attrs TEXT NOT NULL, file TEXT, line INTEGER);
      CREATE TABLE ${this.t.judgments} (query_id TEXT NOT NULL, doc_id TEXT NOT NULL, kind TEXT NOT NULL, label REAL NOT NULL, provenance TEXT NOT NULL, file TEXT, line INTEGER, PRIMARY KEY (query_id, doc_id, kind));
    `);
  }

  // Each batch is a DEFERRED transaction: it touches only TEMP tables, so it takes no lock on the
  // workspace file (the connection's transactions are IMMEDIATE by default, which would take the
  // workspace's write lock for every batch and wait behind other writers while parsing).

  /** The store of long texts (io/importers/longText.ts LongTextStore): this staging's `pieces` table. */
  get longTexts(): this {
    return this;
  }

  beginLongText(): number {
    if (this.tempCacheSize === null) {
      // The pieces pass through the temp pager: a small cache keeps at most a few MB of them in memory.
      this.tempCacheSize = this.db.pragma('temp.cache_size', { simple: true }) as number;
      this.db.pragma(`temp.cache_size = ${-LONG_TEXT_CACHE_KIB}`);
    }
    const id = ++this.longTextCount;
    this.pieceCount.set(id, 0);
    return id;
  }

  appendLongText(id: number, piece: string | Buffer): void {
    const seq = this.pieceCount.get(id);
    if (seq === undefined) throw new Error(`no long text ${id} in this staging`);
    this.pieceCount.set(id, seq + 1);
    // Bytes (checked UTF-8, whole characters) go in as text without a JS string. One statement for
    // every piece: a statement prepared per piece keeps its native memory until V8 collects its
    // wrapper (≈ 8 MiB over the 780 pieces of a 49 MiB text, still held when the publish starts).
    this.appendPiece ??= this.db.transaction((i: number, s: number, p: string | Buffer) => {
      this.insertPiece.run(i, s, p);
    });
    this.appendPiece.deferred(id, seq, piece);
  }

  private get insertPiece(): Statement {
    return (this.insertPieceStmt ??= this.db.prepare(`INSERT INTO ${this.t.pieces} VALUES (?, ?, CAST(? AS TEXT))`));
  }

  readLongText(id: number): string {
    return (this.db.prepare(`SELECT piece FROM ${this.t.pieces} WHERE text_id = ? ORDER BY seq`).pluck().all(id) as string[]).join('');
  }

  /**
   * An SQL expression for long text `id` built inside SQLite from its pieces: concat() of one scalar
   * subquery per piece (nested by CONCAT_ARGS, under SQLite's limit on a function's arguments). The
   * text then never passes through JS: binding it from a buffer costs the buffer, SQLite's copy of
   * the bound value and its copy made writable for the cast, where this costs the pieces (about the
   * text once) and their concatenation (measured for a 49 MiB text with the full-text trigger:
   * 156 MiB over the process's own, against 156 MiB plus the 49 MiB buffer).
   */
  private longTextSql(id: number): string {
    const n = this.pieceCount.get(id);
    if (n === undefined) throw new Error(`no long text ${id} in this staging`);
    let parts = Array.from({ length: n }, (_, seq) => `(SELECT piece FROM ${this.t.pieces} WHERE text_id = ${id} AND seq = ${seq})`);
    if (parts.length === 0) return "''";
    while (parts.length > 1) {
      const next: string[] = [];
      for (let i = 0; i < parts.length; i += CONCAT_ARGS) next.push(`concat(${parts.slice(i, i + CONCAT_ARGS).join(', ')})`);
      parts = next;
    }
    return parts[0]!;
  }

  documents(batch: readonly DocumentInput[]): void {
    const ins = this.db.prepare(`INSERT OR IGNORE INTO ${this.t.docs} VALUES (?, ?, ?, ?, ?, ?, ?)`);
    const first = this.db.prepare(`SELECT file, line FROM ${this.t.docs} WHERE doc_id = ?`);
    this.db.transaction(() => {
      for (const d of batch) {
        const long = d.longText?.longTextId ?? null;
        if (long !== null && !this.pieceCount.has(long)) throw new Error(`document ${quoteId(d.docId)}: long text ${long} is not in this staging`);
        const r = documentText(long === null ? d : { ...d, text: '', longText: undefined });
        if (ins.run(r.docId, r.title, r.text, r.attrs, r.file ?? null, r.line ?? null, long).changes === 0) {
          throw duplicate(`document id ${quoteId(r.docId)}`, first.get(r.docId) as Located, r, 'id');
        }
      }
    }).deferred();
  }

  queries(batch: readonly QueryInput[]): void {
    const ins = this.db.prepare(`INSERT OR IGNORE INTO ${this.t.queries} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const first = this.db.prepare(`SELECT file, line FROM ${this.t.queries} WHERE query_id = ?`);
    this.db.transaction(() => {
      for (const q of batch) {
        const r = queryText(q);
        if (ins.run(r.queryId, r.text, r.answers, r.task, r.metric, r.subaspects, r.candidates, r.attrs, r.file ?? null, r.line ?? null).changes === 0) {
          throw duplicate(`query id ${quoteId(r.queryId)}`, first.get(r.queryId) as Located, r, 'id');
        }
      }
    }).deferred();
  }

  judgments(batch: readonly JudgmentInput[]): void {
    const ins = this.db.prepare(`INSERT OR IGNORE INTO ${this.t.judgments} VALUES (?, ?, ?, ?, ?, ?, ?)`);
    const first = this.db.prepare(`SELECT file, line FROM ${this.t.judgments} WHERE query_id = ? AND doc_id = ? AND kind = ?`);
    this.db.transaction(() => {
      for (const j of batch) {
        const r = judgmentText(j);
        if (ins.run(r.queryId, r.docId, r.kind, r.label, r.provenance, r.file ?? null, r.line ?? null).changes === 0) {
          throw duplicate(`${r.kind} judgment of ${quoteId(r.docId)} for query ${quoteId(r.queryId)}`, first.get(r.queryId, r.docId, r.kind) as Located, r, 'docno');
        }
      }
    }).deferred();
  }

  counts(): { documents: number; queries: number; judgments: number } {
    const n = (t: string) => (this.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
    return { documents: n(this.t.docs), queries: n(this.t.queries), judgments: n(this.t.judgments) };
  }

  /** Staged rows in the order they were read, `size` at a time. */
  *documentChunks(size = 1000): Generator<DocumentText[]> {
    const q = this.db.prepare(`SELECT rowid AS r, doc_id, title, text, attrs, file, line, long FROM ${this.t.docs} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    for (let after = 0; ; ) {
      const rows = q.all(after, size) as { r: number; doc_id: string; title: string; text: string; attrs: string; file: string | null; line: number | null; long: number | null }[];
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.r;
      yield rows.map((x) => ({ docId: x.doc_id, title: x.title, text: x.long === null ? x.text : this.readLongText(x.long), attrs: x.attrs, file: x.file ?? undefined, line: x.line ?? undefined }));
    }
  }

  *queryChunks(size = 1000): Generator<QueryText[]> {
    const q = this.db.prepare(`SELECT rowid AS r, * FROM ${this.t.queries} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    for (let after = 0; ; ) {
      const rows = q.all(after, size) as ({ r: number; query_id: string; file: string | null; line: number | null } & Omit<QueryText, 'queryId' | 'file' | 'line'>)[];
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.r;
      yield rows.map((x) => ({
        queryId: x.query_id,
        text: x.text,
        answers: x.answers,
        task: x.task,
        metric: x.metric,
        subaspects: x.subaspects,
        candidates: x.candidates,
        attrs: x.attrs,
        file: x.file ?? undefined,
        line: x.line ?? undefined,
      }));
    }
  }

  *judgmentChunks(size = 1000): Generator<JudgmentText[]> {
    const q = this.db.prepare(`SELECT rowid AS r, * FROM ${this.t.judgments} WHERE rowid > ? ORDER BY rowid LIMIT ?`);
    for (let after = 0; ; ) {
      const rows = q.all(after, size) as { r: number; query_id: string; doc_id: string; kind: JudgmentText['kind']; label: number; provenance: string; file: string | null; line: number | null }[];
      if (rows.length === 0) return;
      after = rows[rows.length - 1]!.r;
      yield rows.map((x) => ({ queryId: x.query_id, docId: x.doc_id, kind: x.kind, label: x.label, provenance: x.provenance, file: x.file ?? undefined, line: x.line ?? undefined }));
    }
  }

  /**
   * Adds the staged documents to collection `collectionId` with set-based SQL, inside the caller's
   * transaction: a staged id already in the collection with the same content counts as unchanged,
   * with other content it is a DataError naming the first such row's file and line (in the order
   * read), as CollectionsRepo.addDocumentTexts does row by row.
   *
   * Why not row by row: every INSERT statement that fires the full-text trigger opens a statement
   * savepoint, and FTS5 flushes its pending terms at each savepoint, writing one tiny index segment
   * per document that it then has to merge: 100k one-row inserts held the write lock about 3× as
   * long as one INSERT … SELECT (measured in test/bench/importLock.bench.ts). `empty`: the
   * collection was created in this transaction (no lookups needed).
   */
  publishDocuments(collectionId: number, empty: boolean, counts: AddCounts): AddCounts {
    const t = this.t.docs;
    if (!empty) {
      type Clash = { r: number; docId: string; file: string | null; line: number | null; differs: string };
      let clash = this.db
        .prepare(
          `SELECT s.rowid AS r, s.doc_id AS docId, s.file AS file, s.line AS line,
                  CASE WHEN d.text <> s.text THEN 'text' WHEN d.title <> s.title THEN 'title' ELSE 'attrs' END AS differs
             FROM ${t} s JOIN main.documents d ON d.collection_id = ? AND d.doc_id = s.doc_id
            WHERE s.long IS NULL AND (d.text <> s.text OR d.title <> s.title OR d.attrs <> s.attrs)
            ORDER BY s.rowid LIMIT 1`,
        )
        .get(collectionId) as Clash | undefined;
      // Long staged texts already in the collection: compared with the stored text in SQLite, one at a time.
      const longs = this.db
        .prepare(
          `SELECT s.rowid AS r, s.doc_id AS docId, s.file AS file, s.line AS line, s.long AS long, d.id AS id,
                  CASE WHEN d.title <> s.title THEN 'title' WHEN d.attrs <> s.attrs THEN 'attrs' ELSE NULL END AS differs
             FROM ${t} s JOIN main.documents d ON d.collection_id = ? AND d.doc_id = s.doc_id
            WHERE s.long IS NOT NULL AND s.rowid < ? ORDER BY s.rowid`,
        )
        .all(collectionId, clash?.r ?? Number.MAX_SAFE_INTEGER) as (Omit<Clash, 'differs'> & { long: number; id: number; differs: string | null })[];
      for (const l of longs) {
        const same = this.db.prepare(`SELECT text = ${this.longTextSql(l.long)} FROM main.documents WHERE id = ?`).pluck().get(l.id) === 1;
        const differs = same ? l.differs : 'text';
        if (differs !== null) {
          clash = { ...l, differs };
          break;
        }
      }
      if (clash) {
        throw new DataError(`document ${quoteId(clash.docId)} is already in the collection with a different ${clash.differs}`, {
          ...(clash.file !== null ? { file: clash.file } : {}),
          ...(clash.line !== null ? { line: clash.line } : {}),
          field: clash.differs,
        });
      }
      counts.unchanged += (
        this.db.prepare(`SELECT count(*) AS n FROM ${t} s JOIN main.documents d ON d.collection_id = ? AND d.doc_id = s.doc_id`).get(collectionId) as { n: number }
      ).n;
    }
    counts.added += this.insertStaged(collectionId, 0, Number.MAX_SAFE_INTEGER, !empty);
    return counts;
  }

  /**
   * Inserts the staged documents read as rows (after, upTo], in the order read (`skipExisting`:
   * not those whose id the collection has): runs of ordinary rows by one INSERT … SELECT each, a
   * long text by itself, concatenated from its pieces in SQLite (longTextSql). Why not INSERT …
   * SELECT of a whole staged text: SQLite then holds the column read from the staging, its copy into
   * the insert's registers and the new record at once (≈ 4× the text, measured). The page caches
   * are kept small meanwhile (a long row's pages would fill them).
   */
  private insertStaged(collectionId: number, after: number, upTo: number, skipExisting: boolean): number {
    const t = this.t.docs;
    const longs = this.db.prepare(`SELECT rowid AS r, doc_id AS docId, title, attrs, long FROM ${t} WHERE long IS NOT NULL AND rowid > ? AND rowid <= ? ORDER BY rowid`).all(after, upTo) as {
      r: number;
      docId: string;
      title: string;
      attrs: string;
      long: number;
    }[];
    const run = this.db.prepare(
      `INSERT INTO main.documents(collection_id, doc_id, title, text, attrs)
       SELECT ?, s.doc_id, s.title, s.text, s.attrs FROM ${t} s WHERE s.rowid > ? AND s.rowid <= ?
        ${skipExisting ? 'AND NOT EXISTS (SELECT 1 FROM main.documents d WHERE d.collection_id = ? AND d.doc_id = s.doc_id)' : ''}
        ORDER BY s.rowid`,
    );
    const runOf = (from: number, to: number) => (to > from ? run.run(...(skipExisting ? [collectionId, from, to, collectionId] : [collectionId, from, to])).changes : 0);
    let added = 0;
    let from = after;
    for (const l of longs) {
      added += runOf(from, l.r - 1);
      from = l.r;
      if (skipExisting && this.db.prepare(`SELECT 1 FROM main.documents WHERE collection_id = ? AND doc_id = ?`).get(collectionId, l.docId)) continue;
      const cacheSize = this.db.pragma('main.cache_size', { simple: true }) as number;
      this.db.pragma(`main.cache_size = ${-LONG_TEXT_CACHE_KIB}`);
      try {
        added += this.db.prepare(`INSERT INTO main.documents(collection_id, doc_id, title, text, attrs) VALUES (?, ?, ?, ${this.longTextSql(l.long)}, ?)`).run(collectionId, l.docId, l.title, l.attrs).changes;
      } finally {
        this.db.pragma(`main.cache_size = ${cacheSize}`);
      }
    }
    return added + runOf(from, upTo);
  }

  /**
   * Copies the staged documents read as rows (after, upTo] (in the order read) into collection
   * `collectionId`, which must not hold any of them (a collection this import created); inside the
   * caller's transaction. Returns how many were added.
   */
  insertDocumentRange(collectionId: number, after: number, upTo: number): number {
    return this.insertStaged(collectionId, after, upTo, false);
  }

  /**
   * The content hash of a collection holding exactly the staged documents read as rows 1..upTo
   * (nothing else): what a collection filled range by range (insertDocumentRange) stores after each
   * range, so that it always matches its rows.
   */
  documentsHashUpTo(upTo: number): string {
    const h = createHash('sha256');
    h.update(`${CONTENT_HASH_VERSION}\n`);
    this.hashDocuments(h, upTo);
    return h.digest('hex');
  }

  /**
   * The content hash (store/collectionHash.ts) the collection would have if it held exactly the
   * staged rows — what a new collection gets when every staged row is added as staged. Computed
   * from the TEMP tables, so outside the workspace's write lock. `resolveProfileIds` renames a
   * judgment's document to `<query>/<doc>` where such a document is staged, as the commit does
   * (CollectionsRepo.addJudgmentTexts).
   */
  contentHashAsNew(resolveProfileIds: boolean): string {
    const h = createHash('sha256');
    h.update(`${CONTENT_HASH_VERSION}\n`);
    this.hashDocuments(h, Number.MAX_SAFE_INTEGER);
    for (const [id, text, answers, task, metric, sub, cand, attrs] of this.db
      .prepare(`SELECT query_id, text, answers, task, metric, subaspects, candidates, attrs FROM ${this.t.queries} ORDER BY query_id`)
      .raw(true)
      .iterate() as Iterable<[string, string, string, string | null, string | null, string | null, string | null, string]>) {
      h.update(`Q\t[${JSON.stringify(id)},`);
      updateJsonString(h, text);
      h.update(`,${answers},${JSON.stringify(task)},${JSON.stringify(metric)},${sub ?? 'null'},${cand ?? 'null'},${attrs}]\n`);
    }
    const docExpr = resolveProfileIds
      ? `CASE WHEN EXISTS (SELECT 1 FROM ${this.t.docs} x WHERE x.doc_id = j.query_id || '/' || j.doc_id) THEN j.query_id || '/' || j.doc_id ELSE j.doc_id END`
      : 'j.doc_id';
    for (const [q, d, kind, label, prov] of this.db
      .prepare(`SELECT j.query_id, ${docExpr} AS doc, j.kind, j.label, j.provenance FROM ${this.t.judgments} j ORDER BY j.query_id, doc, j.kind`)
      .raw(true)
      .iterate() as Iterable<[string, string, string, number, string]>) {
      h.update(`J\t[${JSON.stringify(q)},${JSON.stringify(d)},${JSON.stringify(kind)},${JSON.stringify(label)},"import",${prov}]\n`);
    }
    return h.digest('hex');
  }

  /**
   * The documents' lines of the content hash (store/collectionHash.ts) for the staged rows 1..upTo,
   * in id order. A long text is hashed piece by piece (its JSON escapes are the pieces' escapes
   * joined: a piece never splits a surrogate pair); the ordered scan stops at each long row so that
   * its pieces are read by a statement of their own, then goes on after it.
   */
  private hashDocuments(h: Hash, upTo: number): void {
    const rows = this.db.prepare(`SELECT doc_id, title, text, attrs, long FROM ${this.t.docs} WHERE doc_id > ? AND rowid <= ? ORDER BY doc_id`).raw(true);
    // A piece is read HASH_SLICE characters at a time (SQLite counts characters, so a slice never
    // splits a surrogate pair): reading the 64 KiB pieces whole, plus their escaped copies, made V8
    // grow its young generation to its maximum (≈ +12 MiB resident before the publish of a 49 MiB
    // text), since each scavenge found the piece being hashed alive.
    const slice = this.db.prepare(`SELECT substr(piece, ?, ${HASH_SLICE}) FROM ${this.t.pieces} WHERE text_id = ? AND seq = ?`).pluck();
    for (let after = ''; ; ) {
      let long: [string, string, string, string, number] | undefined;
      for (const row of rows.iterate(after, upTo) as Iterable<[string, string, string, string, number | null]>) {
        const [id, title, text, attrs, l] = row;
        if (l !== null) {
          long = [id, title, text, attrs, l];
          break; // ends the scan (and its statement) before the pieces are read
        }
        h.update(`D\t[${JSON.stringify(id)},${JSON.stringify(title)},`);
        updateJsonString(h, text);
        h.update(`,${attrs}]\n`);
      }
      if (!long) return;
      const [id, title, , attrs, l] = long;
      h.update(`D\t[${JSON.stringify(id)},${JSON.stringify(title)},"`);
      const n = this.pieceCount.get(l) ?? 0;
      for (let seq = 0; seq < n; seq++) {
        for (let at = 1; ; at += HASH_SLICE) {
          const part = slice.get(at, l, seq) as string;
          if (part.length === 0) break;
          // JSON escapes character by character: the slices' escapes joined are the text's.
          updateEscaped(h, part);
          if (part.length < HASH_SLICE) break;
        }
      }
      h.update(`",${attrs}]\n`);
      after = id;
    }
  }

  drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    this.db.exec(`DROP TABLE IF EXISTS ${this.t.docs}; DROP TABLE IF EXISTS ${this.t.queries}; DROP TABLE IF EXISTS ${this.t.judgments}; DROP TABLE IF EXISTS ${this.t.pieces};`);
    if (this.tempCacheSize !== null) this.db.pragma(`temp.cache_size = ${this.tempCacheSize}`);
  }
}

function duplicate(what: string, first: Located | undefined, at: { file?: string | undefined; line?: number | undefined }, field: string): DataError {
  const where = first ? (first.file && first.file !== at.file ? ` (first in ${first.file} line ${first.line})` : first.line !== null ? ` (first on line ${first.line})` : '') : '';
  return new DataError(`duplicate ${what}${where}`, { ...(at.file !== undefined ? { file: at.file } : {}), ...(at.line !== undefined ? { line: at.line } : {}), field });
}

/** Arguments of one concat() (SQLite allows at most 1,000: SQLITE_MAX_FUNCTION_ARG; a 64 MiB line has at most about 1,010 pieces). */
const CONCAT_ARGS = 1000;
/** The page caches (KiB) while long texts are staged and published. */
const LONG_TEXT_CACHE_KIB = 1024;

/** Characters of a long text's piece read and hashed at a time (hashDocuments). */
const HASH_SLICE = 8192;
/** What JSON.stringify would escape in a string (a lone surrogate included). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Characters of a text JSON-escaped and hashed at a time (see updateJsonString). */
const JSON_SLICE = 1 << 20;

/**
 * `h.update(JSON.stringify(text))` without the escaped copy of the whole text (issue 25 item 3: a
 * 50 MB document was held three more times here: escaped, joined into the row's line, and encoded
 * for the hash). JSON escapes character by character, so the slices' escapes joined are the whole
 * text's; a slice never ends between the two halves of a surrogate pair (JSON.stringify escapes a
 * lone surrogate). The hashed bytes are exactly the same.
 */
/** `part` as JSON.stringify writes it between the quotes (a part that needs no escape as it is). */
function updateEscaped(h: Hash, part: string): void {
  h.update(NEEDS_ESCAPE.test(part) ? JSON.stringify(part).slice(1, -1) : part);
}

function updateJsonString(h: Hash, text: string): void {
  if (text.length <= JSON_SLICE) {
    h.update(JSON.stringify(text));
    return;
  }
  h.update('"');
  for (let i = 0; i < text.length; ) {
    let j = Math.min(text.length, i + JSON_SLICE);
    const last = text.charCodeAt(j - 1);
    if (j < text.length && last >= 0xd800 && last <= 0xdbff) j--;
    updateEscaped(h, text.slice(i, j));
    i = j;
  }
  h.update('"');
}
