/**
 * From a DOM selection in the transcript to words. Every word of a turn is a `[data-word]` span and
 * the whitespace after it a `[data-gap]` span (gap -1: before the first word), both with
 * `data-turn`; the word positions themselves come from the API, which counts them with
 * core/fairness/wordCount, so nothing is counted here.
 */

export interface WordRef {
  turn: number;
  word: number;
}

function boundaryElement(container: Node, offset: number, side: 'start' | 'end'): Element | null {
  if (container.nodeType === Node.TEXT_NODE) return container.parentElement;
  const children = container.childNodes;
  const child = side === 'start' ? (children[offset] ?? children[children.length - 1]) : (children[offset - 1] ?? children[0]);
  if (!child) return container instanceof Element ? container : null;
  return child instanceof Element ? child : child.parentElement;
}

/** The word a range boundary is in; in whitespace, the next word (start) or the previous one (end). */
export function wordAt(container: Node, offset: number, side: 'start' | 'end'): WordRef | undefined {
  let el = boundaryElement(container, offset, side);
  // A boundary on the turn's paragraph itself: look at the span it points to.
  if (el && !el.closest('[data-word],[data-gap]') && el.querySelector('[data-word]')) {
    const spans = el.querySelectorAll<HTMLElement>('[data-word],[data-gap]');
    el = side === 'start' ? (spans[0] ?? null) : (spans[spans.length - 1] ?? null);
  }
  const span = el?.closest<HTMLElement>('[data-word],[data-gap]');
  if (!span) return undefined;
  const turn = Number(span.dataset.turn);
  if (span.dataset.word !== undefined) return { turn, word: Number(span.dataset.word) };
  const gap = Number(span.dataset.gap);
  return { turn, word: side === 'start' ? gap + 1 : gap };
}

/** The words a non-empty selection covers, or why it cannot be a nugget. */
export function selectedWords(selection: Selection | null): { turn: number; first: number; last: number } | { problem: string } | undefined {
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return undefined;
  const range = selection.getRangeAt(0);
  const a = wordAt(range.startContainer, range.startOffset, 'start');
  const b = wordAt(range.endContainer, range.endOffset, 'end');
  if (!a || !b) return undefined;
  if (a.turn !== b.turn) return { problem: 'Select words within one system turn: a nugget cannot cross turns.' };
  if (b.word < a.word) return undefined; // only whitespace
  return { turn: a.turn, first: a.word, last: b.word };
}
