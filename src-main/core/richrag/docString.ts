/**
 * The text RichRAG scores and ranks for a document (reference note richrag.md §1.2): `"{title} {text}"`,
 * where the title becomes `"{title}: {section}"` when a non-empty section exists. Without a title (or
 * section) the text alone.
 */
export interface RichRagDocument {
  text: string;
  title?: string;
  section?: string;
}

export function richRagDocString(doc: RichRagDocument): string {
  const title = doc.section ? `${doc.title ?? ''}: ${doc.section}` : (doc.title ?? '');
  return title ? `${title} ${doc.text}` : doc.text;
}
