/**
 * `fairground eval ir` as v0.1 ran it, for the process rows of the evalfiles bench: the run read
 * whole with one object per line (runParserV0), grouped and evaluated (evaluateRun), the `all`
 * lines printed as eval ir prints them. Bundled by the bench with esbuild into one file, as the
 * CLI is bundled, and run as its own process: `node evalIrV0.mjs RUN QRELS MEASURE...`.
 */
import { evaluateRun } from '../../../src-main/core/ir/evaluateRun';
import { formatMeasureTsv, measureRows } from '../../../src-main/io/measureCsv';
import { readQrelsFile } from '../../../src-main/io/trec/qrels';
import { readRunFileV0 } from './runParserV0';

const [runPath, qrelsPath, ...measures] = process.argv.slice(2);
const evaluation = evaluateRun(readRunFileV0(runPath!), readQrelsFile(qrelsPath!), measures, { runSource: runPath, qrelsSource: qrelsPath });
process.stdout.write(formatMeasureTsv(measureRows(evaluation, { perQuery: false })));
