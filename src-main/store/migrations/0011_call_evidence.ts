import type { Migration } from '../migration';

/**
 * Issue 35:
 * - `batch_calls.prompt_tokens`: the prompt token count of each exported request line, counted at
 *   `plan export` by the server's own tokenizer (JSON `{custom_id: count}`; NULL or a missing line
 *   when no tokenizer counted it). `cache import` holds each answer's `usage.prompt_tokens` against
 *   it, so two generation answers swapped between prompts of different lengths are refused.
 */
export const migration0011: Migration = {
  version: 11,
  name: 'call_evidence',
  up(db) {
    db.exec(`
      ALTER TABLE batch_calls ADD COLUMN prompt_tokens TEXT;
    `);
  },
};
