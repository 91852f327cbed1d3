/** `fairground model make-tiny OUT.gguf`: write a seeded random llama model for tests and benchmarks. */
import { numberOption, parseCliArgs } from '../args';
import { CliError, type CliCommand } from '../command';
import { TINY_PRESETS, writeTinyGguf, type TinyPreset, type WrittenModel } from '../../engine/gguf/tinyModel';
import { formatCount, formatBytes } from './modelFormat';
import { commitOutputFile } from '../../io/outputTarget';
import { OUTPUT_HELP, checkOutputs, outputOptionSpec } from '../writeOutput';

export const modelMakeTinyCommand: CliCommand = {
  path: ['model', 'make-tiny'],
  summary: 'Write a tiny random llama GGUF (for tests and benchmarks; no download)',
  help: `Usage: fairground model make-tiny OUT.gguf [--preset tiny|bench] [--seed S]

Writes a llama-architecture GGUF with random weights drawn from the seed: same seed, same bytes.
It tokenizes any UTF-8, has a ChatML chat template and mean pooling for embeddings.

      --preset tiny|bench  tiny: 2 layers, width 64, F16, ~0.5 MB (default)
                           bench: 12 layers, width 768, Q8_0, ~110M parameters, ~117 MB
      --seed S             weight seed (default 0)
${OUTPUT_HELP}

Example: fairground model make-tiny /tmp/tiny.gguf --seed 7`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...outputOptionSpec, preset: { type: 'string' }, seed: { type: 'string' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one output path (OUT.gguf)');
    const preset = (values.preset ?? 'tiny') as TinyPreset;
    if (!(preset in TINY_PRESETS)) throw new CliError(`--preset: expected tiny or bench, got '${values.preset}'`);
    const seed = numberOption(values.seed, 'seed', { integer: true, min: 0, max: 0xffffffff }) ?? 0;
    // Checked before anything is written: never a FIFO, device, socket, folder or (by default) a symbolic link.
    const [target] = checkOutputs(io, [positionals[0] as string], values['follow-symlinks']);
    const out = target!.path;
    let written: WrittenModel;
    try {
      written = await writeTinyGguf(target!.dest, { preset, seed }, { mode: target!.mode, commit: (tmp) => commitOutputFile(target!, tmp) });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new CliError(code ? `cannot write ${target!.shown} (${code})` : (err as Error).message);
    }
    io.stdout.write(`Wrote ${out}: ${preset} preset, seed ${seed}, ${formatCount(written.parameters)} parameters, ${formatBytes(written.bytes)}\n`);
    return 0;
  },
};
