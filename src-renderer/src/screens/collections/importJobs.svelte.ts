/** The ids of finished import jobs, so screens can reload when an import they wait for is done. */
import { jobs } from '../../state/jobs.svelte';

export function finishedImportsKey(): string {
  return jobs.list
    .filter((j) => j.kind.startsWith('collections.import') && j.status === 'succeeded')
    .map((j) => j.id)
    .join(',');
}
