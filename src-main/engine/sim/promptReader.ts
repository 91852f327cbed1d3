/**
 * How the simulated reader reads a prompt: which of its queries the prompt asks, and which of its
 * documents it shows in which order. Everything is learnt from the rendered text (no side channel),
 * so a prompt builder that drops, reorders or swaps documents changes what the reader answers.
 *
 * Matching is on whitespace-collapsed text. A query is found by its full text (the longest known
 * query that occurs wins). A document is found by the longest prefix of its text that occurs, at
 * least its first four words (so a text cut by a word budget or "…" is still found); where two
 * documents start the same, the longer match wins; a document whose text is not found is looked up
 * by its title (8 characters or more). Documents overlapping the query's text are ignored.
 */
import { squash } from './text';
import type { SimDoc, SimQuery, SimWorld } from './world';

export interface FoundQuery {
  query: SimQuery;
  /** Offsets in the squashed text. */
  start: number;
  end: number;
}

export interface FoundDoc {
  doc: SimDoc;
  start: number;
  end: number;
}

interface DocKey {
  doc: SimDoc;
  text: string;
  key: string;
  title: string;
}

function keyOf(text: string): string {
  const parts = text.split(' ');
  const key = parts.slice(0, 4).join(' ');
  return key.length >= 8 ? key : text;
}

export class PromptReader {
  private readonly queries: { query: SimQuery; text: string }[];
  private readonly keys = new Map<string, DocKey>();
  private readonly allKeys: DocKey[];

  constructor(readonly world: SimWorld) {
    this.queries = world.queries.map((query) => ({ query, text: squash(query.text).trim() })).filter((q) => q.text.length > 0);
    this.queries.sort((a, b) => b.text.length - a.text.length);
    for (const doc of world.docs) {
      const text = squash(doc.text).trim();
      this.keys.set(doc.id, { doc, text, key: keyOf(text), title: squash(doc.title).trim() });
    }
    this.allKeys = [...this.keys.values()];
  }

  findQuery(squashed: string): FoundQuery | null {
    for (const q of this.queries) {
      const start = squashed.lastIndexOf(q.text);
      if (start >= 0) return { query: q.query, start, end: start + q.text.length };
    }
    return null;
  }

  /** The documents shown in `squashed`, in order of appearance; `candidates` limits the search. */
  findDocs(squashed: string, candidates: readonly string[] | null, exclude: { start: number; end: number } | null): FoundDoc[] {
    const pool = candidates ? candidates.map((id) => this.keys.get(id)).filter((k): k is DocKey => k !== undefined) : this.allKeys;
    const hits: { key: DocKey; start: number; len: number }[] = [];
    const matched = new Set<string>();
    for (const k of pool) {
      if (k.text.length === 0) continue;
      let pos = squashed.indexOf(k.key);
      while (pos >= 0) {
        let len = k.key.length;
        while (len < k.text.length && pos + len < squashed.length && squashed.charCodeAt(pos + len) === k.text.charCodeAt(len)) len++;
        hits.push({ key: k, start: pos, len });
        matched.add(k.doc.id);
        pos = squashed.indexOf(k.key, pos + 1);
      }
    }
    for (const k of pool) {
      if (matched.has(k.doc.id) || k.title.length < 8) continue;
      const pos = squashed.indexOf(k.title);
      if (pos >= 0) hits.push({ key: k, start: pos, len: k.title.length });
    }
    hits.sort((a, b) => a.start - b.start || b.len - a.len);
    const out: FoundDoc[] = [];
    const seen = new Set<string>();
    let lastEnd = -1;
    for (const h of hits) {
      const end = h.start + h.len;
      if (h.start < lastEnd || seen.has(h.key.doc.id)) continue;
      if (exclude && h.start < exclude.end && end > exclude.start) continue;
      out.push({ doc: h.key.doc, start: h.start, end });
      seen.add(h.key.doc.id);
      lastEnd = end;
    }
    return out;
  }
}
