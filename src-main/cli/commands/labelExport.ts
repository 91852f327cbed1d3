/** `fairground label export`: a collection's utility labels as TREC qrels or Fair-RAG's TSV files. */
import { OUTPUT_HELP, checkOutputs, outputOptionSpec, writeChecked } from '../writeOutput';
import { LabelExportFormat } from '../../api/contract/labeling';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { collectionIdByName, withLabelServices } from './labelWorkspace';

export const labelExportCommand: CliCommand = {
  path: ['label', 'export'],
  summary: 'Write utility labels as TREC qrels or Fair-RAG relevance mapping / delta TSV',
  help: `Usage: fairground label export --collection NAME --format FORMAT [--output FILE] [options]

Writes the utility labels (imported, LLM and manual) of the queries with at least --min-useful
useful documents, queries in collection order, documents in candidate order.

  --collection NAME     the collection
  --format F            qrels            TREC 'qid 0 docno label'
                        fairrag-mapping  'qid<TAB>pid<TAB>relevance_label' with header (Fair-RAG)
                        fairrag-delta    'qid pid augment_score baseline_score delta' with header
  --min-useful M        keep queries with at least M useful documents (default 2; 0: all labelled)
  -o, --output FILE     write here (default: stdout)
${OUTPUT_HELP}
${WORKSPACE_HELP}

Example: fairground label export --collection lamp2 --format fairrag-mapping -o 2_relevance_mapping.tsv`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      ...workspaceOptionSpec,
      ...outputOptionSpec,
      collection: { type: 'string' },
      format: { type: 'string' },
      'min-useful': { type: 'string' },
      output: { type: 'string', short: 'o' },
    });
    const collection = requireOption(values.collection, 'collection');
    const format = LabelExportFormat.safeParse(requireOption(values.format, 'format'));
    if (!format.success) throw new CliError(`--format: expected ${LabelExportFormat.options.join(', ')}, got '${values.format}'`);
    const minUseful = numberOption(values['min-useful'], 'min-useful', { integer: true, min: 0 }) ?? 2;
    const targets = values.output === undefined ? [] : checkOutputs(io, [values.output], values['follow-symlinks']);
    return withLabelServices(io, values.workspace, async (s) => {
      const out = s.labeling.export(collectionIdByName(s, collection), format.data, minUseful);
      if (values.output === undefined) io.stdout.write(out.content);
      else {
        writeChecked(targets[0]!, out.content);
        io.stderr.write(`wrote ${out.rows} labels of ${out.queries} ${out.queries === 1 ? 'query' : 'queries'} to ${values.output}\n`);
      }
      return 0;
    });
  },
};
