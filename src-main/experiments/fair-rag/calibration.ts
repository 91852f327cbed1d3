/**
 * Fair RAG's measured calibration (ExperimentKind.calibration; services/simulation/calibration*.ts):
 * Table 2's default test's null rejection rate, measured by simulating the spec at the planted null. The
 * key is everything that decides that rate: the spec with its defaults filled in (so a spec file and the
 * run's stored spec have the same key), less its name, description and attribution judge (which does not
 * enter Table 2: left out of the simulation to save time, as scripts/calibration.ts does).
 */
import { FairRagSpec } from '../../api/contract/fairRag';
import type { KindCalibration } from '../registry';

export const fairRagCalibration: KindCalibration = {
  test: "Table 2's test",
  basis(spec) {
    const parsed = FairRagSpec.safeParse(spec);
    if (!parsed.success) return null;
    const { name: _n, description: _d, attribution: _a, ...rest } = parsed.data as unknown as Record<string, unknown>;
    return rest;
  },
  simulated: (spec) => ({ ...spec, attribution: { judge: 'none' } }),
};
