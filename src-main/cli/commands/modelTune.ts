/**
 * `fairground model tune MODEL`: measure prompt processing and generation at each thread count on
 * this machine (alternating rounds, medians; engine/local/threadTuning.ts) and print the table and
 * the choice. For a model of the workspace library the choice is stored with the model and used
 * from then on, unless a thread count was set by the user (that always wins). For a GGUF path the
 * table is only printed.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { numberOption, parseCliArgs } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { LocalEngine } from '../../engine/local/localEngine';
import { candidateThreadCounts, describeTuning, type ThreadTuning } from '../../engine/local/threadTuning';
import { EngineError } from '../../engine/types';
import { withExperimentServices } from './experimentServices';

export const modelTuneCommand: CliCommand = {
  path: ['model', 'tune'],
  summary: 'Measure a model at each CPU thread count on this machine and keep the fastest',
  help: `Usage: fairground model tune MODEL [--budget-ms N] [--json] [--workspace PATH]

MODEL is the name of a model in the workspace library (the result is stored with it and used from
the next call on, unless a thread count is set in the model's or the workspace's settings) or a GGUF
file (the table is only printed).

Each thread count from 1 to the usable logical CPUs evaluates a 64-token prompt and generates 8
tokens, in alternating rounds; the table shows medians and, for the reference call (a 256-token
prompt and 16 generated tokens), the range over the rounds. The fewest threads within 5% of the
fastest are chosen. Other processes using the CPU make every count slower and more threads much
slower (llama.cpp's threads spin while they wait for each other): tune on a quiet machine.

      --budget-ms N        stop starting rounds after N ms (default 8000; at least 2 rounds)
      --json               print the measurements as JSON
${WORKSPACE_HELP}

Example: fairground model tune tiny`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, 'budget-ms': { type: 'string' }, json: { type: 'boolean' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one model (a library name or a GGUF path)');
    const budgetMs = numberOption(values['budget-ms'], 'budget-ms', { integer: true, min: 0 });
    const arg = positionals[0] as string;
    const file = resolve(io.cwd, arg);
    try {
      if (existsSync(file) && statSync(file).isFile()) {
        const engine = new LocalEngine({ modelPath: file, settings: { gpu: false } });
        try {
          const tuning = await engine.tune(budgetMs !== undefined ? { budgetMs } : {});
          print(io, tuning, values.json === true, 'not stored (a file, not a library model)');
        } finally {
          await engine.close();
        }
        return 0;
      }
      return await withExperimentServices(io, values.workspace, async (s) => {
        const model = s.models.models.getByName(arg);
        if (!model) throw new CliError(`no GGUF file '${arg}' and no model of that name in the library`);
        const result = await s.models.tune(model.id, budgetMs !== undefined ? { budgetMs } : {});
        const t = result.threads;
        const note =
          t && t.chosenBy !== 'tuning'
            ? `stored; not used: ${t.threads} thread(s) from the ${t.chosenBy} win (set threads to 0 / remove the model's threads to use the tuning)`
            : 'stored with the model; used from the next call on';
        print(io, result.tuning, values.json === true, note);
        return 0;
      });
    } catch (err) {
      if (err instanceof EngineError) throw new CliError(`${err.code}: ${err.message}`, 1);
      throw err;
    }
  },
};

function print(io: CliIo, t: ThreadTuning, json: boolean, note: string): void {
  if (json) {
    io.stdout.write(`${JSON.stringify({ ...t, note })}\n`);
    return;
  }
  const header = ['threads', 'prompt tok/s', 'generation tok/s', `${t.reference.promptTokens}+${t.reference.decodeTokens}-token call (median, range)`, 'trials'];
  const rows = t.measurements.map((m) => [
    `${m.threads}${m.threads === t.threads ? ' *' : ''}`,
    m.promptTokensPerSecond.toFixed(0),
    m.decodeTokensPerSecond.toFixed(1),
    `${m.callMs.toFixed(1)} ms (${m.callMsRange[0].toFixed(1)}–${m.callMsRange[1].toFixed(1)})`,
    String(m.trials),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ').trimEnd();
  io.stdout.write(`${line(header)}\n${rows.map(line).join('\n')}\n`);
  const untried = candidateThreadCounts(t.usableCores).length - t.measurements.length;
  io.stdout.write(
    `chosen: ${describeTuning(t)}\n` +
      `${t.usableCores} usable logical CPUs, ${t.freeCores} free when tuning began${untried > 0 ? `; ${untried} count(s) dropped after a probe over 10x slower than the best` : ''}; ${(t.durationMs / 1000).toFixed(1)} s\n` +
      `${note}\n`,
  );
}
