/**
 * Documents of a ranking as byte ranges of one buffer (a run file read without a string per line,
 * issue 25 item 4): the docno of row i is `bytes[docStart[i], docEnd[i])` in UTF-8. Labels are
 * looked up by those bytes in a per-query hash table of the qrels' docnos, and trec_eval's order
 * (score descending, ties by docno descending) compares the bytes as `strcmp` does, which is the
 * order `compareBytewise` gives the decoded strings.
 */
import type { Label } from './queryMeasures';

/** One query's rows in columns; valid only while the reader hands them over. */
export interface RankingBytes {
  length: number;
  bytes: Uint8Array;
  docStart: Int32Array;
  docEnd: Int32Array;
  /** `hashBytes` of each docno. */
  docHash: Int32Array;
  score: Float64Array;
}

/** FNV-1a (32-bit) of bytes[a, b). */
export function hashBytes(bytes: Uint8Array, a: number, b: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = a; i < b; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h;
}

/** `strcmp` of a[a0, a1) and b[b0, b1): negative, 0 or positive. */
function compareByteRanges2(a: Uint8Array, a0: number, a1: number, b: Uint8Array, b0: number, b1: number): number {
  const n = Math.min(a1 - a0, b1 - b0);
  for (let i = 0; i < n; i++) {
    const d = a[a0 + i]! - b[b0 + i]!;
    if (d !== 0) return d;
  }
  return a1 - a0 - (b1 - b0);
}

/** `strcmp` of bytes[a0, a1) and bytes[b0, b1) (same buffer): negative, 0 or positive. */
export function compareByteRanges(bytes: Uint8Array, a0: number, a1: number, b0: number, b1: number): number {
  const n = Math.min(a1 - a0, b1 - b0);
  for (let i = 0; i < n; i++) {
    const d = bytes[a0 + i]! - bytes[b0 + i]!;
    if (d !== 0) return d;
  }
  return a1 - a0 - (b1 - b0);
}

let encoder: { encode(text: string): Uint8Array } | undefined;

/** The UTF-8 bytes of a string (ASCII without a TextEncoder). */
function utf8(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return (encoder ??= new TextEncoder()).encode(text);
    out[i] = c;
  }
  return out;
}

/**
 * A query's judgements given as byte ranges of one buffer (a qrels file read without a string per
 * line): entry i is the docno `bytes[start[i], end[i])` with hash `hash[i]` (`hashBytes`) and its label.
 */
export interface JudgementBytes {
  bytes: Uint8Array;
  start: Int32Array;
  end: Int32Array;
  hash: Int32Array;
  labels: readonly number[];
}

/** A query's judgements (docno → label) as an open-addressing table keyed by the docno's UTF-8 bytes. */
export class DocLabelTable {
  private readonly keys: Uint8Array;
  private readonly start: Int32Array;
  private readonly end: Int32Array;
  private readonly labels: Float64Array;
  /** Slot → entry + 1 (0: empty). */
  private readonly slots: Int32Array;
  private readonly hashes: Int32Array;
  private readonly mask: number;
  /**
   * The first entry whose docno repeats an earlier entry's (only byte ranges can repeat one; a map
   * cannot), or -1. A table with a repeat answers for the earlier entry.
   */
  readonly repeated: number = -1;

  constructor(judgements: ReadonlyMap<string, number> | JudgementBytes) {
    if ('bytes' in judgements) {
      const j = judgements;
      this.keys = j.bytes;
      this.start = j.start;
      this.end = j.end;
      this.hashes = j.hash;
      this.labels = Float64Array.from(j.labels);
    } else {
      const encoded: Uint8Array[] = [];
      let total = 0;
      const byDoc = judgements as ReadonlyMap<string, number>;
      for (const docno of byDoc.keys()) {
        const e = utf8(docno);
        encoded.push(e);
        total += e.length;
      }
      const n = encoded.length;
      this.keys = new Uint8Array(total);
      this.start = new Int32Array(n);
      this.end = new Int32Array(n);
      this.labels = new Float64Array(n);
      this.hashes = new Int32Array(n);
      let at = 0;
      let i = 0;
      for (const label of byDoc.values()) {
        const e = encoded[i]!;
        this.keys.set(e, at);
        this.start[i] = at;
        this.end[i] = at += e.length;
        this.labels[i] = label;
        this.hashes[i] = hashBytes(this.keys, this.start[i]!, at);
        i++;
      }
    }
    const n = this.labels.length;
    let size = 4;
    while (size < 2 * n) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    const { keys, start, end, hashes, slots, mask } = this;
    for (let i = 0; i < n; i++) {
      const h = hashes[i]!;
      let s = h & mask;
      for (let e = slots[s]! - 1; e >= 0; s = (s + 1) & mask, e = slots[s]! - 1) {
        if (hashes[e] === h && compareByteRanges2(keys, start[e]!, end[e]!, keys, start[i]!, end[i]!) === 0) {
          if (this.repeated < 0) this.repeated = i;
          s = -1;
          break;
        }
      }
      if (s >= 0) slots[s] = i + 1;
    }
  }

  /** Number of entries. */
  get size(): number {
    return this.labels.length;
  }

  /** The label of a docno given as a string (UTF-8 encoded for the look-up), or undefined when it is not judged. */
  getString(docno: string): Label {
    const b = utf8(docno);
    return this.get(b, 0, b.length, hashBytes(b, 0, b.length));
  }

  /** The labels, in entry order. */
  labelList(): number[] {
    return Array.from(this.labels);
  }

  /** docno → label, in entry order (decoded; for callers that need strings). */
  toMap(): Map<string, number> {
    const out = new Map<string, number>();
    const decoder = new TextDecoder();
    for (let i = 0; i < this.labels.length; i++) {
      const docno = decoder.decode(this.keys.subarray(this.start[i]!, this.end[i]!));
      if (!out.has(docno)) out.set(docno, this.labels[i]!);
    }
    return out;
  }

  /** The label of the docno bytes[a, b) with hash h, or undefined when it is not judged. */
  get(bytes: Uint8Array, a: number, b: number, h: number): Label {
    const { keys, start, end, slots, mask, hashes } = this;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[s]! - 1;
      if (e < 0) return undefined;
      if (hashes[e] !== h) continue;
      const k0 = start[e]!;
      const len = end[e]! - k0;
      if (len !== b - a) continue;
      let same = true;
      for (let j = 0; j < len; j++) {
        if (keys[k0 + j] !== bytes[a + j]) {
          same = false;
          break;
        }
      }
      if (same) return this.labels[e]!;
    }
  }
}

/**
 * Labels of a query's documents in trec_eval order (score descending, docno descending), cut at
 * depth: `rankedLabels` of evaluateRun.ts for rows given as bytes. Rows already in that order (the
 * usual run) are read in place; otherwise they are sorted.
 */
export function rankedLabelsOfBytes(q: RankingBytes, table: DocLabelTable, depth: number): Label[] {
  const { length, bytes, docStart, docEnd, docHash, score } = q;
  const n = Math.min(length, depth);
  const out: Label[] = new Array(n);
  let sorted = true;
  for (let i = 1; i < length; i++) {
    const d = score[i - 1]! - score[i]!;
    if (d < 0 || (d === 0 && compareByteRanges(bytes, docStart[i - 1]!, docEnd[i - 1]!, docStart[i]!, docEnd[i]!) < 0)) {
      sorted = false;
      break;
    }
  }
  if (sorted) {
    for (let i = 0; i < n; i++) out[i] = table.get(bytes, docStart[i]!, docEnd[i]!, docHash[i]!);
    return out;
  }
  const order = Array.from({ length }, (_, i) => i);
  order.sort((a, b) => score[b]! - score[a]! || compareByteRanges(bytes, docStart[b]!, docEnd[b]!, docStart[a]!, docEnd[a]!));
  for (let i = 0; i < n; i++) {
    const r = order[i]!;
    out[i] = table.get(bytes, docStart[r]!, docEnd[r]!, docHash[r]!);
  }
  return out;
}
