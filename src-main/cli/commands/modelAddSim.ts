/**
 * `fairground model add-sim`: a simulated reader (issue 14) in the model library, with its profile
 * given as options or as a JSON file (the same profile `models.addSim` takes). The reader is then
 * named in specs like any model: {"generator": {"model": "Simulated reader (primacy)"}}.
 */
import { resolve } from 'node:path';
import { ApiFailure } from '../../api/router';
import { BIAS_SHAPES } from '../../engine/sim/profile';
import { readSpecFile } from '../../experiments/specFile';
import { addSimModel } from '../../services/simulation/simModels';
import { ModelsRepo } from '../../store/modelsRepo';
import { numberOption, parseCliArgs } from '../args';
import { CliError, type CliCommand } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { openExistingWorkspace } from './modelLibrary';

const HELP = `Usage: fairground model add-sim --collection NAME [options]

Adds a simulated reader: an engine whose answers, scores and judgments are planted by a declared
profile over a collection (planted truth, not a language model). Runs, manifests and exports made
with it say "simulated reader" and record the profile.

Options:
      --collection NAME  the collection whose queries, answers and documents it knows (required
                         unless --profile gives it)
      --name NAME        library name (default e.g. "Simulated reader (primacy)"; a name without
                         "simulated reader" gets " (simulated reader)" appended)
      --bias B           position bias over the documents of a prompt: ${BIAS_SHAPES.join(', ')}
                         (default u-shaped), or explicit weights a_1,a_2,... (normalised to sum 1)
      --utility RULE     labels (default: the collection's utility labels, else relevance grades)
                         or answer-in-document (useful when the text contains an answer)
      --closed-book C    accuracy without a useful document, in [0, 1] (default 0.2)
      --noise X          0 = deterministic thresholds (default), 1 = Bernoulli draws, in [0, 1]
      --seed S           seed of every random choice (default 0)
      --utility-scale X  multiplies every planted utility, in [0, 1] (0 = no document helps)
      --profile FILE     the profile as JSON ({"collection", "bias", ...}); options given beside it win
${WORKSPACE_HELP}
      --json             print the library entry as JSON

Example:
  fairground model add-sim --collection "Fairground demo" --bias primacy --closed-book 0 --name "Simulated reader (primacy)"
`;

export const modelAddSimCommand: CliCommand = {
  path: ['model', 'add-sim'],
  summary: 'Add a simulated reader (planted truth) to the model library',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      ...workspaceOptionSpec,
      collection: { type: 'string' },
      name: { type: 'string' },
      bias: { type: 'string' },
      utility: { type: 'string' },
      'closed-book': { type: 'string' },
      noise: { type: 'string' },
      seed: { type: 'string' },
      'utility-scale': { type: 'string' },
      profile: { type: 'string' },
      json: { type: 'boolean' },
    });
    const profile: Record<string, unknown> = {};
    if (values.profile !== undefined) {
      const raw = readSpecFile(resolve(io.cwd, values.profile), values.profile);
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new CliError(`${values.profile}: expected a JSON object (the profile)`);
      Object.assign(profile, raw);
    }
    if (values.collection !== undefined) profile.collection = values.collection;
    if (values.bias !== undefined) profile.bias = parseBias(values.bias);
    if (values.utility !== undefined) {
      if (values.utility !== 'labels' && values.utility !== 'answer-in-document') throw new CliError(`--utility: expected labels or answer-in-document, got '${values.utility}'`);
      profile.utility = values.utility;
    }
    const closedBook = numberOption(values['closed-book'], 'closed-book', { min: 0, max: 1 });
    if (closedBook !== undefined) profile.closedBookAccuracy = closedBook;
    const noise = numberOption(values.noise, 'noise', { min: 0, max: 1 });
    if (noise !== undefined) profile.noise = noise;
    const seed = numberOption(values.seed, 'seed', { integer: true, min: 0, max: 0xffffffff });
    if (seed !== undefined) profile.seed = seed;
    const scale = numberOption(values['utility-scale'], 'utility-scale', { min: 0, max: 1 });
    if (scale !== undefined) profile.utilityScale = scale;
    if (profile.collection === undefined) throw new CliError('--collection is required (the collection the reader knows)');

    const ws = openExistingWorkspace(values.workspace, io);
    try {
      const record = addSimModel(ws.db, new ModelsRepo(ws.db), { name: values.name, profile });
      if (values.json) io.stdout.write(`${JSON.stringify(record)}\n`);
      else io.stdout.write(`Added '${record.name}': ${String(record.metadata.description ?? '')}\n`);
    } catch (error) {
      if (error instanceof ApiFailure) throw new CliError(`${error.field && !error.message.startsWith(error.field) ? `${error.field}: ` : ''}${error.message}`);
      throw error;
    } finally {
      ws.close();
    }
    return 0;
  },
};

function parseBias(value: string): string | number[] {
  if ((BIAS_SHAPES as readonly string[]).includes(value)) return value;
  const parts = value.split(',').map((x) => x.trim());
  const numbers = parts.map(Number);
  if (parts.some((p) => p === '') || numbers.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new CliError(`--bias: expected one of ${BIAS_SHAPES.join(', ')} or non-negative weights like 0.5,0.3,0.2, got '${value}'`);
  }
  if (!numbers.some((n) => n > 0)) throw new CliError('--bias: explicit weights need a positive value');
  return numbers;
}
