/**
 * `fairground model try MODEL --prompt TEXT`: generate once with the local engine and print the
 * text. The model runs in the engine's worker process, so a model that crashes llama.cpp ends
 * with a one-line reason and a non-zero exit, never a crashed CLI. A library model that fails to
 * load is marked failed in the library.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceHelp';
import { LocalEngine } from '../../engine/local/localEngine';
import type { GpuSetting } from '../../engine/local/settings';
import { EngineError } from '../../engine/types';
import type { ModelRecord } from '../../store/modelsRepo';
import { machineKey } from '../../engine/local/settings';
import type { ThreadTuning } from '../../engine/local/threadTuning';

const GPU_VALUES: Record<string, GpuSetting> = { auto: 'auto', off: false, cuda: 'cuda', metal: 'metal', vulkan: 'vulkan' };

export const modelTryCommand: CliCommand = {
  path: ['model', 'try'],
  summary: 'Generate once from a model and print the text (greedy unless --temperature)',
  help: `Usage: fairground model try MODEL --prompt TEXT [options]

MODEL is a GGUF file, the name of a model in the workspace library, or the name of a remote
model of the workspace ('fairground remote add'; --threads and --gpu do not apply to it).

      --prompt TEXT        the prompt (plain text, no chat template)
      --max-tokens N       tokens to generate (default 64)
      --temperature T      sample at this temperature (default: greedy)
      --seed S             sampling seed (default 0; only used with --temperature)
      --threads N          CPU threads (default: the model's measured count on this machine, else physical
                           cores; fewer while other programs hold cores)
      --gpu auto|off|cuda|metal|vulkan   GPU backend (default auto)
      --json               print the whole result as JSON
${WORKSPACE_HELP}

Example: fairground model try /tmp/tiny.gguf --prompt "The answer is" --max-tokens 16`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(
      argv,
      {
        ...workspaceOptionSpec,
        prompt: { type: 'string' },
        'max-tokens': { type: 'string' },
        temperature: { type: 'string' },
        seed: { type: 'string' },
        threads: { type: 'string' },
        gpu: { type: 'string' },
        json: { type: 'boolean' },
      },
      true,
    );
    if (positionals.length !== 1) throw new CliError('expected one model (a GGUF path or a library name)');
    const prompt = requireOption(values.prompt, 'prompt');
    const maxTokens = numberOption(values['max-tokens'], 'max-tokens', { integer: true, min: 1 }) ?? 64;
    const temperature = numberOption(values.temperature, 'temperature', { min: 0 }) ?? 0;
    const seed = numberOption(values.seed, 'seed', { integer: true, min: 0, max: 0xffffffff }) ?? 0;
    const threads = numberOption(values.threads, 'threads', { integer: true, min: 1 });
    const gpu = values.gpu === undefined ? undefined : GPU_VALUES[values.gpu];
    if (values.gpu !== undefined && gpu === undefined) throw new CliError(`--gpu: expected auto, off, cuda, metal or vulkan, got '${values.gpu}'`);

    // A file path wins; otherwise the name is looked up in the library.
    const arg = positionals[0] as string;
    const file = resolve(io.cwd, arg);
    let record: ModelRecord | undefined;
    let tuning: ThreadTuning | undefined;
    let onFailure: (message: string) => void = () => undefined;
    let modelPath = file;
    if (!(existsSync(file) && statSync(file).isFile())) {
      // The workspace (SQLite) is loaded only for a library name: a GGUF path starts the engine
      // without it (time to first token, issue 18).
      const [{ openExistingWorkspace }, { ModelsRepo }, { ThreadTuningRepo }] = await Promise.all([
        import('./modelLibrary'),
        import('../../store/modelsRepo'),
        import('../../store/threadTuningRepo'),
      ]);
      const ws = openExistingWorkspace(values.workspace, io);
      try {
        record = new ModelsRepo(ws.db).getByName(arg);
        // Threads as the library measured them on this machine (`fairground model tune`), unless --threads.
        if (record) tuning = new ThreadTuningRepo(ws.db).get<ThreadTuning>(record.id, machineKey());
      } finally {
        ws.close();
      }
      if (!record) return tryRemote(arg, { prompt, maxTokens, temperature, seed, json: values.json === true }, values.workspace, io);
      modelPath = record.path;
      const { id } = record;
      onFailure = (message) => {
        const again = openExistingWorkspace(values.workspace, io);
        try {
          new ModelsRepo(again.db).setStatus(id, 'failed', message);
        } finally {
          again.close();
        }
      };
    }

    const engine = new LocalEngine({
      modelPath,
      settings: { ...(record?.settings ?? {}), ...(threads !== undefined ? { threads } : {}), ...(gpu !== undefined ? { gpu } : {}) },
      ...(record?.sha256 ? { modelKey: record.sha256 } : {}),
      tuning,
    });
    try {
      const result = await engine.generate({ prompt, maxTokens, sampling: temperature > 0 ? { temperature, seed } : { temperature: 0 } });
      io.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${result.text}\n`);
      return 0;
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      if (err.code === 'model-load-failed' || err.code === 'engine-crashed') onFailure(err.message);
      throw new CliError(`${err.code}: ${err.message}`, 1);
    } finally {
      await engine.close();
    }
  },
};

/** `model try` on a remote model of the workspace: the service's try (reachability checked first: seconds, not retries). */
async function tryRemote(
  name: string,
  opts: { prompt: string; maxTokens: number; temperature: number; seed: number; json: boolean },
  workspace: string | undefined,
  io: CliIo,
): Promise<number> {
  const [{ createCliAppServices }, { ApiFailure }] = await Promise.all([import('./cliAppServices'), import('../../api/router')]);
  const services = createCliAppServices(workspace, io);
  try {
    const remote = services.models.listRemotes().find((r) => r.name === name);
    if (!remote) throw new CliError(`no GGUF file '${name}', and no model or remote model of that name in the workspace`);
    const result = await services.models.try({ kind: 'remote', endpointId: remote.id }, { prompt: opts.prompt, maxTokens: opts.maxTokens, temperature: opts.temperature, seed: opts.seed, chat: false });
    io.stdout.write(opts.json ? `${JSON.stringify(result)}\n` : `${result.text}\n`);
    return 0;
  } catch (err) {
    if (err instanceof ApiFailure) throw new CliError(err.message, 1);
    if (err instanceof EngineError) throw new CliError(`${err.code}: ${err.message}`, 1);
    throw err;
  } finally {
    await services.close();
  }
}
