/** What the wizard's steps choose from (loaded by the wizard from the API). */
import type { ApiOutput } from '$contract';

export type QuerySummary = ApiOutput<'queries.list'>['items'][number];

export interface WizardChoices {
  collections: ApiOutput<'collections.list'>;
  collection: ApiOutput<'collections.get'> | undefined;
  queries: QuerySummary[];
  models: ApiOutput<'models.list'>;
  remotes: ApiOutput<'remotes.list'>;
  runs: ApiOutput<'retrieval.runs.list'>;
}

export interface Issue {
  path: string;
  message: string;
}

/** aria-describedby id of a field's issue line. */
export const issueId = (path: string): string => `issue-${path.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
