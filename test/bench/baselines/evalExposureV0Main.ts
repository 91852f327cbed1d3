/**
 * `fairground eval exposure` (no attribution) with v0.1's reading, for the process rows of the
 * evalfiles bench: the run read whole with one object per line (runParserV0), grouped into
 * qid → sample → rows by rank, the same expected-exposure computation (core/exposure), the `all`
 * lines printed as the command prints them. Bundled by the bench with esbuild and run as its own
 * process: `node evalExposureV0.mjs RUN QRELS K`. It skips the command's input checks (rank gaps,
 * unknown documents), so it is a floor for v0.1 rather than v0.1 itself.
 */
import { expectedExposure } from '../../../src-main/core/exposure/expectedExposure';
import { compareIds } from '../../../src-main/core/sampling/itemChecks';
import { formatDecimals } from '../../../src-main/io/measureCsv';
import { readQrelsFile } from '../../../src-main/io/trec/qrels';
import { readRunFileV0 } from './runParserV0';

const [runPath, qrelsPath, kText] = process.argv.slice(2);
const k = Number(kText);
const items = new Map<string, { id: string; useful: boolean }[]>();
for (const r of readQrelsFile(qrelsPath!)) {
  let list = items.get(r.qid);
  if (!list) items.set(r.qid, (list = []));
  list.push({ id: r.docno, useful: r.rel > 0 });
}
const samples = new Map<string, Map<string, { rank: number; docno: string }[]>>();
for (const r of readRunFileV0(runPath!)) {
  let byId = samples.get(r.qid);
  if (!byId) samples.set(r.qid, (byId = new Map()));
  let rows = byId.get(r.iter);
  if (!rows) byId.set(r.iter, (rows = []));
  rows.push({ rank: r.rank, docno: r.docno });
}
const names = ['EE-D', 'EE-R', 'EE-L', 'EE-D_norm', 'EE-R_norm', 'EE-L_norm'] as const;
const sums = new Float64Array(names.length);
for (const qid of [...samples.keys()].sort(compareIds)) {
  const byId = samples.get(qid)!;
  const rankings = [...byId.values()].map((rows) => rows.sort((a, b) => a.rank - b.rank).map((r) => r.docno));
  const ee = expectedExposure({ items: items.get(qid)!, rankings, k });
  [ee.eeD, ee.eeR, ee.eeL, ee.eeDNorm, ee.eeRNorm, ee.eeLNorm].forEach((v, i) => (sums[i] = sums[i]! + v));
}
process.stdout.write(names.map((m, i) => `${m}\tall\t${formatDecimals(sums[i]! / samples.size, 6)}\n`).join(''));
