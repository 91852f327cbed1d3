/** `fairground retrieve search`: BM25 search of one collection from the terminal. */
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { withRetrieval } from './retrieve';

const HELP = `Usage: fairground retrieve search --collection NAME --query TEXT [--k N] [--json]

Searches one collection with SQLite FTS5 BM25 (Porter-stemmed; the query's words are OR-ed, no
query syntax) and prints rank, doc id, score, title and a snippet with the matches in [brackets].

Options:
  --collection NAME      the collection (by name)
  --query TEXT           what to search for
  --k N                  hits (default 10)
  --title-weight W       weight of the title field (default 1)
  --text-weight W        weight of the text field (default 1)
  --json                 print the hits as JSON (snippets as escaped HTML with <mark>)
${WORKSPACE_HELP}

Example:
  fairground retrieve search --collection wpqa --query "fair ranking exposure" --k 5
`;

export const retrieveSearchCommand: CliCommand = {
  path: ['retrieve', 'search'],
  summary: 'Search a collection with BM25 and show highlighted snippets',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      ...workspaceOptionSpec,
      collection: { type: 'string' },
      query: { type: 'string' },
      k: { type: 'string' },
      'title-weight': { type: 'string' },
      'text-weight': { type: 'string' },
      json: { type: 'boolean' },
    });
    const name = requireOption(values.collection, 'collection');
    const query = requireOption(values.query, 'query');
    const k = numberOption(values.k, 'k', { integer: true, min: 1, max: 1000 }) ?? 10;
    const weights = {
      title: numberOption(values['title-weight'], 'title-weight', { min: 0 }) ?? 1,
      text: numberOption(values['text-weight'], 'text-weight', { min: 0 }) ?? 1,
    };
    return withRetrieval(io, values.workspace, undefined, async (service) => {
      const collectionId = service.repo.collectionIdByName(name);
      if (collectionId === undefined) throw new CliError(`no collection named '${name}' in the workspace`);
      const result = service.search({ collectionId, query, k, weights });
      if (values.json) {
        io.stdout.write(`${JSON.stringify(result)}\n`);
        return 0;
      }
      if (result.hits.length === 0) {
        io.stdout.write(result.terms.length === 0 ? 'no search terms in the query\n' : 'no matches\n');
        return 0;
      }
      for (const h of result.hits) {
        io.stdout.write(`${String(h.rank).padStart(3)}. ${h.docId}  ${h.score.toFixed(4)}  ${htmlToText(h.titleHtml)}\n`);
        const snippet = htmlToText(h.snippetHtml);
        if (snippet) io.stdout.write(`     ${snippet}\n`);
      }
      return 0;
    });
  },
};

/** The escaped snippet HTML as terminal text: <mark> → [ ], entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replaceAll('<mark>', '[')
    .replaceAll('</mark>', ']')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!)
    .replace(/\s+/g, ' ')
    .trim();
}
