/**
 * Cases the fuzz tests found, kept as plain tests so they fail without their fix.
 */
import { unprivilegedCanRunCli } from '../support/unprivileged';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { parseSpecText } from '../../src-main/experiments/specFile';
import { parseGfrcInput } from '../../src-main/io/gfrc/readGfrcInput';
import { parseMoiCase } from '../../src-main/io/moi/readMoiCase';
import { cli } from './cliHarness';

const dir = mkdtempSync(join(tmpdir(), 'fg-fuzz-regress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(fn: () => unknown): DataError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DataError) return err;
    throw err;
  }
  throw new Error('expected a DataError');
}

/**
 * V8 reports some JSON syntax errors without a position but with an excerpt of the source, cut
 * with '...' on both sides when the text is long: `Unexpected token ',', ..."s": [\n,  1.29"... is
 * not valid JSON`. The excerpt has the file's line breaks in it, so the CLI's one-line error
 * became several lines.
 */
describe('JSON syntax errors in long multi-line documents are one line', () => {
  const long = `{\n  "n": 5,\n  "permutations": [\n${Array(20).fill('    [0, 1, 2, 3, 4]').join(',\n')}\n  ],\n  "scores": [\n,    1.29\n  ]\n}\n`;

  it('MoI case files', () => {
    const err = errorOf(() => parseMoiCase(long, 'case.json'));
    expect(err.message).toBe("case.json: invalid JSON: Unexpected token ','");
  });

  it('GFRC input files', () => {
    const err = errorOf(() => parseGfrcInput(long.replace('"n": 5', '"L": 1000'), 'conv.json'));
    expect(err.message).toBe("conv.json: invalid JSON: Unexpected token ','");
  });
});

/**
 * trec_eval (and our reader) keep U+00A0 inside a docno, but the run `sample` writes may not hold
 * it (formatRun refuses whitespace, which Python's split() would break on): the error named an
 * output row ("row 4 docno: …") instead of the input file and line.
 */
describe('fairground sample: a docno the output cannot hold', () => {
  it('names the input file and line', async () => {
    writeFileSync(join(dir, 'nbsp.trec'), 'q1 Q0 d1 1 3 bm25\nq1 Q0 d\u00a02 2 2 bm25\n');
    const r = await cli(['sample', '--run', 'nbsp.trec', '--alpha', '1', '--samples', '2', '-k', '2', '--seed', '1'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("fairground sample: nbsp.trec:2: docno: contains a Unicode space, which the written run cannot keep: 'd\u00a02'\n");
  });
});

/**
 * A quoted CSV header field may span lines; the mapping error listed the header's columns verbatim,
 * so `fairground collection import` printed a two-line error.
 */
describe('collection import: a mapping error over a multi-line CSV header', () => {
  it('is one line', async () => {
    writeFileSync(join(dir, 'header.csv'), 'id,"long\nname"\n1,x\n');
    const r = await cli(['collection', 'import', '--kind', 'corpus', '--name', 'c', '-w', 'w.fairground', '--id-column', 'doc', 'header.csv'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`fairground collection import: ${join(dir, 'header.csv')}:1: idColumn: the mapping names column 'doc', but the columns are 'id', 'long\\nname'\n`);
  });
});

/**
 * `workspace check` on a workspace with a damaged page: integrity_check found the damage, then the
 * per-table scan hit it and threw, so the check ended as "fairground workspace check: database disk
 * image is malformed" instead of listing the problems. With the page of an FTS5 shadow table
 * zeroed, the integrity_check pragma itself threw ("vtable constructor failed").
 */
describe('workspace check on a damaged workspace', () => {
  const FIX = join(process.cwd(), 'test', 'fixtures', 'collections');

  /** A copy of a small workspace with the root page of `table` zeroed. */
  async function damaged(table: string): Promise<string> {
    const good = `good-${table}.fairground`;
    expect((await cli(['collection', 'import', '--kind', 'corpus', '--name', 'c', '-w', good, join(FIX, 'corpus.jsonl')], dir)).code).toBe(0);
    const db = new Database(join(dir, good), { readonly: true });
    const { rootpage } = db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = ?`).get(table) as { rootpage: number };
    db.close();
    const bytes = readFileSync(join(dir, good));
    const pageSize = bytes.readUInt16BE(16);
    bytes.fill(0, (rootpage - 1) * pageSize, rootpage * pageSize);
    writeFileSync(join(dir, `damaged-${table}.fairground`), bytes);
    return `damaged-${table}.fairground`;
  }

  for (const [table, finding] of [
    ['documents', /cannot be read: database disk image is malformed/],
    ['documents_fts_config', /the integrity check stopped: vtable constructor failed: documents_fts/],
  ] as const) {
    it(`lists the problems (exit 1) instead of failing: ${table}`, async () => {
      const r = await cli(['workspace', 'check', '-w', await damaged(table)], dir);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^problem: /);
      expect(r.stdout).toMatch(finding);
    });
  }
});

/**
 * A workspace the user may not write (a read-only file in a read-only folder) was reported as
 * "not a readable Fairground workspace (attempt to write a readonly database)" — the 'corrupt'
 * error — because reading a WAL database needs a writable folder; the 'read-only' error that
 * names the cause was never reached. (As root permissions do not apply, so the command runs as
 * nobody there.)
 */
describe('a read-only workspace', () => {
  // As root the CLI runs as nobody, which needs a checkout nobody can read (not under a 0700 folder).
  it.skipIf(process.platform === 'win32' || !unprivilegedCanRunCli())('is named read-only, not corrupt', async () => {
    const ro = mkdtempSync(join(tmpdir(), 'fg-ro-'));
    const ws = join(ro, 'w.fairground');
    try {
      expect((await cli(['workspace', 'init', '-w', ws], ro)).code).toBe(0);
      chmodSync(ws, 0o444);
      chmodSync(ro, 0o555);
      const argv = ['workspace', 'info', '-w', ws];
      const r =
        process.getuid?.() === 0
          ? spawnSync(process.execPath, [join(process.cwd(), 'bin', 'fairground.js'), ...argv], { uid: 65534, gid: 65534, cwd: ro, encoding: 'utf8', timeout: 60_000 })
          : await cli(argv, ro);
      expect(r.stderr).toBe(`fairground workspace info: the workspace ${ws} is read-only (no write permission on the file or its folder)\n`);
    } finally {
      chmodSync(ro, 0o755);
      rmSync(ro, { recursive: true, force: true });
    }
  });
});

/** `fairground run SPEC.json`: the same V8 excerpt problem as the MoI and GFRC readers above. */
describe('experiment spec files', () => {
  it('a JSON syntax error in a long multi-line spec is one line', () => {
    const spec = `{\n  "kind": "fair-rag",\n  "name": "x",\n${Array.from({ length: 12 }, (_, i) => `  "k${i}": ${i}`).join(',\n')},\n  "retrievers": [\n,    1\n  ]\n}\n`;
    const err = errorOf(() => parseSpecText(spec, 'spec.json'));
    expect(err.message).toBe("spec.json: invalid JSON: Unexpected token ','");
  });
});

/**
 * A YAML spec error was meant to carry its line (parseSpecText reads `linePos`), but the parser
 * fills `linePos` only with prettyErrors, which the reader turns off: the line was always missing.
 */
describe('experiment spec files (YAML)', () => {
  it('a YAML error names its line', () => {
    const err = errorOf(() => parseSpecText('kind: fair-rag\nname: x\nkind: again\n', 'spec.yaml'));
    expect(err.message).toBe('spec.yaml:3: invalid YAML: Map keys must be unique');
  });
});

/**
 * `conversation import --attributes FILE.json` passed JSON.parse's message through: V8's excerpt
 * of a pretty-printed file spans lines (a multi-line error), a byte-order mark was a syntax error,
 * and invalid UTF-8 was read as U+FFFD instead of being reported.
 */
describe('conversation import --attributes', () => {
  const FIX = join(process.cwd(), 'test', 'fixtures', 'conversations', 'e2e.jsonl');
  const attrs = JSON.stringify([{ name: 'SIDE', kind: 'nominal', groups: ['left', 'right'] }], null, 2);
  const run = (file: string) => cli(['conversation', 'import', FIX, '--set', 's', '--attributes', file, '-w', 'conv.fairground'], dir);

  it('reports a syntax error on one line with its line', async () => {
    writeFileSync(join(dir, 'attrs-bad.json'), attrs.replace('"left",', '"left",,'));
    const r = await run('attrs-bad.json');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^fairground conversation import: attrs-bad\.json:\d+: invalid JSON: [^\n]*\n$/);
  });

  it('skips a byte-order mark and refuses invalid UTF-8', async () => {
    writeFileSync(join(dir, 'attrs-bom.json'), `\uFEFF${attrs}`);
    expect((await run('attrs-bom.json')).stderr).toBe('');
    const [head, tail] = attrs.split('"left"') as [string, string];
    writeFileSync(join(dir, 'attrs-latin1.json'), Buffer.concat([Buffer.from(`${head}"l`), Buffer.from([0xe9]), Buffer.from(`ft"${tail}`)]));
    expect((await run('attrs-latin1.json')).stderr).toMatch(/^fairground conversation import: attrs-latin1\.json:\d+: invalid UTF-8\n$/);
  });
});

/**
 * A workspace whose schema text is damaged: SQLite's "malformed database schema" error quotes the
 * broken SQL with its line breaks, and the 'corrupt' workspace error passed it on: a multi-line
 * error (found by fuzzing damaged workspace files).
 */
describe('a workspace with damaged schema text', () => {
  it('is reported on one line', async () => {
    const ws = join(dir, 'schema.fairground');
    expect((await cli(['workspace', 'init', '-w', ws], dir)).code).toBe(0);
    // Open a '[' quote in the stored CREATE TABLE text (same length, so the page stays valid).
    // (Every copy of the text: a freed page may hold an old one.)
    const bytes = readFileSync(ws);
    let copies = 0;
    for (let at = bytes.indexOf('CREATE TABLE settings ('); at >= 0; at = bytes.indexOf('CREATE TABLE settings (', at + 1), copies++) {
      bytes.write('[', bytes.indexOf('key', at), 'latin1');
    }
    expect(copies).toBeGreaterThan(0);
    writeFileSync(ws, bytes);
    const r = await cli(['workspace', 'info', '-w', ws], dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^fairground workspace info: .*schema\.fairground is not a readable Fairground workspace \(malformed database schema \(settings\)[^\n]*\n$/);
  });
});
