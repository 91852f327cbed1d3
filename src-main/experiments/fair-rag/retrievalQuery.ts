/**
 * φ_q: the text a retriever scores the candidates with (Fair RAG Sec. 3; fair-rag.md §6 "Query/
 * corpus for retrieval"). `text` uses the stored query text as is; `lamp` takes the part of a LaMP
 * input Fair-RAG retrieved with:
 *   LaMP-1: the two quoted reference titles, `"{r1} {r2}"` → `r1 r2`;
 *   LaMP-2/3/4: the text after `description:`, `review:`, `article:`;
 *   otherwise (LaMP-5..7): the text after the first `:`; without a colon, the whole text.
 */
export function retrievalText(text: string, mode: 'text' | 'lamp'): string {
  if (mode === 'text') return text;
  const refs = /\[1\]:\s*"([\s\S]*?)"\s*\[2\]:\s*"([\s\S]*?)"/.exec(text);
  if (refs) return `${refs[1]} ${refs[2]}`;
  for (const marker of ['description:', 'review:', 'article:']) {
    const at = text.indexOf(marker);
    if (at >= 0) return text.slice(at + marker.length).trim();
  }
  const colon = text.indexOf(':');
  return colon >= 0 ? text.slice(colon + 1).trim() : text;
}
