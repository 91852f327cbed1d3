/**
 * Seeded mutation of valid input files for fuzz tests: the same seed gives the same cases on every
 * machine (createRng), so a failing case is reproduced by its seed and index alone.
 *
 * Mutations are the ways real files go wrong: cut off (a full disk, a killed download), emptied,
 * wrong bytes (Latin-1 or binary in a UTF-8 file, NUL), a byte-order mark or CRLF line ends from
 * another editor, a huge line (a whole document on one line), a line repeated (duplicate ids),
 * columns swapped or dropped, a value of the wrong type. JSON inputs also get structural mutations
 * (a value replaced by one of another type, a key dropped, an array item repeated).
 */
import { createRng, type Rng } from '../../src-main/core/random/rng';

export interface FuzzCase {
  /** What was done, e.g. `truncate@120+crlf`, for the failure message. */
  name: string;
  bytes: Buffer;
}

export interface MutatorOptions {
  /** Size of the occasional huge line (default 2 MiB). */
  hugeLineBytes?: number;
  /** Chance that a case gets a huge line (default 0.03; they are slow to write and read). */
  hugeLineRate?: number;
  /** Mutations per case: 1..maxSteps (default 3). */
  maxSteps?: number;
}

const INVALID_UTF8: readonly number[][] = [
  [0xff],
  [0xfe, 0xfe],
  [0xc3, 0x28], // a lead byte without its continuation
  [0x80], // a lone continuation byte
  [0xc0, 0xaf], // overlong '/'
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate
  [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
  [0xe9], // Latin-1 'é'
];

const ODD_VALUES = ['', 'abc', 'NaN', 'Infinity', '-Infinity', '1e309', '-0', '0x10', '1,5', '9007199254740993', '-1', '3.7', 'null', 'true', '[]', '{}', '"', "'", '\\', '\u00a0', '\u2028', '#', '\u0000', 'é'];

type Step = (b: Buffer, rng: Rng) => { tag: string; bytes: Buffer };

function lines(b: Buffer): string[] {
  return b.toString('latin1').split('\n');
}
function fromLines(ls: string[]): Buffer {
  return Buffer.from(ls.join('\n'), 'latin1');
}
/** A latin1 view keeps every byte as one char, so line edits never re-encode invalid bytes. */
function latin1(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1');
}

function pickLine(ls: string[], rng: Rng): number {
  const nonEmpty = ls.map((l, i) => (l.trim() === '' ? -1 : i)).filter((i) => i >= 0);
  return nonEmpty.length ? nonEmpty[rng.nextInt(nonEmpty.length)]! : rng.nextInt(Math.max(1, ls.length));
}

function splitFields(line: string): { fields: string[]; sep: string } {
  for (const sep of ['\t', ',', ' ']) if (line.includes(sep)) return { fields: line.split(sep), sep };
  return { fields: [line], sep: ' ' };
}

const byteSteps: Record<string, Step> = {
  truncate: (b, rng) => {
    const at = b.length === 0 ? 0 : rng.nextInt(b.length);
    return { tag: `truncate@${at}`, bytes: b.subarray(0, at) };
  },
  empty: () => ({ tag: 'empty', bytes: Buffer.alloc(0) }),
  whitespaceOnly: () => ({ tag: 'whitespace-only', bytes: Buffer.from(' \n\t\r\n\n') }),
  invalidUtf8: (b, rng) => {
    const bad = Buffer.from(INVALID_UTF8[rng.nextInt(INVALID_UTF8.length)]!);
    const at = rng.nextInt(b.length + 1);
    return { tag: `invalid-utf8@${at}`, bytes: Buffer.concat([b.subarray(0, at), bad, b.subarray(at)]) };
  },
  nul: (b, rng) => {
    const at = rng.nextInt(b.length + 1);
    return { tag: `nul@${at}`, bytes: Buffer.concat([b.subarray(0, at), Buffer.from([0]), b.subarray(at)]) };
  },
  flipByte: (b, rng) => {
    if (b.length === 0) return { tag: 'flip(empty)', bytes: b };
    const out = Buffer.from(b);
    const at = rng.nextInt(out.length);
    out[at] = rng.nextInt(256);
    return { tag: `flip@${at}`, bytes: out };
  },
  bom: (b) => ({ tag: 'bom', bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]) }),
  crlf: (b) => ({ tag: 'crlf', bytes: Buffer.from(b.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1') }),
  crOnly: (b) => ({ tag: 'cr-only', bytes: Buffer.from(b.toString('latin1').replace(/\r?\n/g, '\r'), 'latin1') }),
  noFinalNewline: (b) => ({ tag: 'no-final-newline', bytes: Buffer.from(b.toString('latin1').replace(/\n+$/, ''), 'latin1') }),
};

const lineSteps: Record<string, Step> = {
  duplicateLine: (b, rng) => {
    const ls = lines(b);
    const i = pickLine(ls, rng);
    ls.splice(i + 1, 0, ls[i] ?? '');
    return { tag: `dup-line${i + 1}`, bytes: fromLines(ls) };
  },
  deleteLine: (b, rng) => {
    const ls = lines(b);
    const i = pickLine(ls, rng);
    ls.splice(i, 1);
    return { tag: `del-line${i + 1}`, bytes: fromLines(ls) };
  },
  shuffleLines: (b, rng) => ({ tag: 'shuffle', bytes: fromLines(rng.shuffled(lines(b))) }),
  swapColumns: (b, rng) => {
    const ls = lines(b);
    const i = pickLine(ls, rng);
    const { fields, sep } = splitFields(ls[i] ?? '');
    if (fields.length >= 2) {
      const x = rng.nextInt(fields.length);
      const y = (x + 1 + rng.nextInt(fields.length - 1)) % fields.length;
      [fields[x], fields[y]] = [fields[y]!, fields[x]!];
    }
    ls[i] = fields.join(sep);
    return { tag: `swap-cols-line${i + 1}`, bytes: fromLines(ls) };
  },
  dropColumn: (b, rng) => {
    const ls = lines(b);
    const i = pickLine(ls, rng);
    const { fields, sep } = splitFields(ls[i] ?? '');
    fields.splice(rng.nextInt(fields.length), 1);
    ls[i] = fields.join(sep);
    return { tag: `drop-col-line${i + 1}`, bytes: fromLines(ls) };
  },
  extraColumn: (b, rng) => {
    const ls = lines(b);
    const i = pickLine(ls, rng);
    const { fields, sep } = splitFields(ls[i] ?? '');
    fields.splice(rng.nextInt(fields.length + 1), 0, 'extra');
    ls[i] = fields.join(sep);
    return { tag: `extra-col-line${i + 1}`, bytes: fromLines(ls) };
  },
  wrongValue: (b, rng) => {
    const ls = lines(b);
    const i = pickLine(ls, rng);
    const { fields, sep } = splitFields(ls[i] ?? '');
    const f = rng.nextInt(fields.length);
    const v = ODD_VALUES[rng.nextInt(ODD_VALUES.length)]!;
    fields[f] = latin1(v);
    ls[i] = fields.join(sep);
    return { tag: `value-line${i + 1}-col${f + 1}=${JSON.stringify(v)}`, bytes: fromLines(ls) };
  },
  wrongToken: (b, rng) => {
    // Replace one token (a run of letters/digits/quotes) anywhere, for JSON and text alike.
    const s = b.toString('latin1');
    const tokens = [...s.matchAll(/"[^"\n]*"|[A-Za-z0-9_.+-]+/g)];
    if (tokens.length === 0) return { tag: 'token(none)', bytes: b };
    const t = tokens[rng.nextInt(tokens.length)]!;
    const v = ['null', '0', '-1', '1.5', '"x"', '[]', '{}', 'true', '"', '1e400', '"\\ud800"', '"' + 'y'.repeat(50) + '"'][rng.nextInt(12)]!;
    return { tag: `token@${t.index}=${v}`, bytes: Buffer.from(s.slice(0, t.index) + v + s.slice(t.index! + t[0].length), 'latin1') };
  },
  deleteChar: (b, rng) => {
    if (b.length === 0) return { tag: 'delchar(empty)', bytes: b };
    const at = rng.nextInt(b.length);
    return { tag: `delchar@${at}`, bytes: Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]) };
  },
  insertStructural: (b, rng) => {
    const c = ['{', '}', '[', ']', ',', ':', '"', '\t', '\n', '#', ' '][rng.nextInt(11)]!;
    const at = rng.nextInt(b.length + 1);
    return { tag: `insert${JSON.stringify(c)}@${at}`, bytes: Buffer.concat([b.subarray(0, at), Buffer.from(c), b.subarray(at)]) };
  },
};

/** Structural mutations of a parsed JSON value (for JSON and JSON-lines inputs). */
export function mutateJsonValue(value: unknown, rng: Rng): { tag: string; value: unknown } {
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  const paths: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]) => {
    paths.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(copy, []);
  const path = paths[rng.nextInt(paths.length)]!;
  const replacements: unknown[] = [null, 0, -1, 1.5, 1e300, '', 'x', true, [], {}, [1, 'a'], { a: 1 }, 'é'.repeat(3), -0];
  const op = rng.nextInt(4);
  if (path.length === 0) return { tag: 'json:root=[]', value: op % 2 ? [] : {} };
  const parent = path.slice(0, -1).reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], copy) as Record<string | number, unknown> | unknown[];
  const key = path[path.length - 1]!;
  const where = path.join('.');
  if (op === 0 || op === 3) {
    const r = replacements[rng.nextInt(replacements.length)];
    (parent as Record<string | number, unknown>)[key] = r;
    return { tag: `json:${where}=${JSON.stringify(r)}`, value: copy };
  }
  if (op === 1) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
    return { tag: `json:del ${where}`, value: copy };
  }
  if (Array.isArray(parent)) {
    parent.splice(key as number, 0, JSON.parse(JSON.stringify(parent[key as number] ?? null)));
    return { tag: `json:dup ${where}`, value: copy };
  }
  (parent as Record<string, unknown>)[`${String(key)}_extra`] = parent[key];
  return { tag: `json:extra key ${where}`, value: copy };
}

export interface Mutator {
  /** One mutated copy of `valid`. `json` enables structural JSON mutations. */
  next(valid: Buffer, opts?: { json?: 'document' | 'lines' }): FuzzCase;
  rng: Rng;
}

export function createMutator(seed: number | string, options: MutatorOptions = {}): Mutator {
  const rng = createRng(seed);
  const huge = options.hugeLineBytes ?? 2 * 1024 * 1024;
  const hugeRate = options.hugeLineRate ?? 0.03;
  const maxSteps = options.maxSteps ?? 3;
  const all = { ...byteSteps, ...lineSteps };
  const names = Object.keys(all);
  // Whole-file replacements are rarer than edits, or most cases would be the same empty file.
  const weights = names.map((n) => (n === 'empty' || n === 'whitespaceOnly' ? 0.3 : 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const pick = (): string => {
    let r = rng.nextFloat() * total;
    for (let i = 0; i < names.length; i++) if ((r -= weights[i]!) < 0) return names[i]!;
    return names[names.length - 1]!;
  };

  return {
    rng,
    next(valid, opts = {}) {
      let bytes: Buffer = Buffer.from(valid);
      const tags: string[] = [];
      if (opts.json && rng.nextFloat() < 0.45) {
        try {
          if (opts.json === 'document') {
            const m = mutateJsonValue(JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')), rng);
            tags.push(m.tag);
            bytes = Buffer.from(JSON.stringify(m.value, null, rng.nextFloat() < 0.5 ? 2 : 0));
          } else {
            const ls = bytes.toString('utf8').split('\n');
            const i = pickLine(ls, rng);
            const m = mutateJsonValue(JSON.parse(ls[i]!), rng);
            tags.push(`line${i + 1} ${m.tag}`);
            ls[i] = JSON.stringify(m.value);
            bytes = Buffer.from(ls.join('\n'));
          }
        } catch {
          // not valid JSON after all: fall through to byte mutations
        }
      }
      const steps = tags.length && rng.nextFloat() < 0.5 ? 0 : 1 + rng.nextInt(maxSteps);
      for (let s = 0; s < steps; s++) {
        const name = pick();
        const r = all[name]!(bytes, rng);
        tags.push(r.tag);
        bytes = r.bytes;
      }
      if (rng.nextFloat() < hugeRate) {
        const ls = lines(bytes);
        const i = rng.nextInt(ls.length + 1);
        const filler = rng.nextFloat() < 0.5 ? 'x'.repeat(huge) : `${ls[Math.min(i, ls.length - 1)] ?? ''}${' word'.repeat(Math.floor(huge / 5))}`;
        ls.splice(i, 0, filler);
        tags.push(`huge-line${i + 1}`);
        bytes = fromLines(ls);
      }
      return { name: tags.join('+'), bytes };
    },
  };
}
