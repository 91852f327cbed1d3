/**
 * JSON layout of a RichRAG coverage input (`fairground richrag coverage --input POOL.json`):
 *   {"subanswers": ["..."], "docs": [{"id": "...", "text": "...", "title"?: "...", "section"?: "..."}],
 *    "k": 10, "ranking"?: ["id", ...]}
 * zod checks the shape so every error names its field path (`docs[3].id`); the cross-field rules
 * (unique ids, ranking ids known and unique) are in readCoverageInput.ts. `ranking: null` means no ranking.
 */
import { z } from 'zod';

const nonEmpty = z.string().refine((s) => s.trim() !== '', 'must not be empty');

const doc = z.strictObject({
  id: z.string().min(1, 'must not be empty'),
  text: z.string(),
  /** Optional; the scored text is then "{title} {text}" (or "{title}: {section} {text}"), as RichRAG's. */
  title: z.string().optional(),
  section: z.string().optional(),
});

export const coverageInputSchema = z.strictObject({
  subanswers: z.array(nonEmpty).min(1, 'needs at least one sub-answer'),
  docs: z.array(doc).min(1, 'needs at least one document'),
  k: z.number().int('must be an integer').min(1, 'must be at least 1'),
  ranking: z.array(z.string()).nullable().optional(),
});
