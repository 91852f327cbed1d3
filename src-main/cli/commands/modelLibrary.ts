/**
 * `fairground model add|list|info|remove`: the workspace's model library. Adding reads the GGUF
 * header (a broken file is refused before anything is stored) and hashes the file, with progress
 * on stderr; the SHA-256 is the model's identity for the call cache and manifests.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseCliArgs } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, resolveWorkspacePath, workspaceOptionSpec } from '../workspaceOption';
import { readGgufMetadata, type GgufModelInfo } from '../../engine/gguf/ggufReader';
import { sha256File } from '../../engine/gguf/sha256File';
import { CallCacheRepo } from '../../store/callCacheRepo';
import { ModelsRepo, type ModelRecord } from '../../store/modelsRepo';
import { inspectWorkspace, openWorkspace, type Workspace } from '../../store/workspace';
import { formatBytes, formatCount } from './modelFormat';
import { DataError } from '../../core/errors';

/** What the library keeps from a GGUF header (the full key/value list stays in the file). */
export function modelSummary(info: GgufModelInfo): Record<string, unknown> {
  const { architecture, name, parameterCount, quantization, fileType, contextLength, embeddingLength, layerCount, headCount, vocabSize, poolingType, hasChatTemplate, version } =
    info;
  return { architecture, name, parameterCount, quantization, fileType, contextLength, embeddingLength, layerCount, headCount, vocabSize, poolingType, hasChatTemplate, ggufVersion: version };
}

/** Open the workspace for a model command; a missing workspace is an error, not created. */
export function openExistingWorkspace(value: string | undefined, io: CliIo): Workspace {
  const path = resolveWorkspacePath(value, io);
  if (!inspectWorkspace(path).exists) throw new CliError(`no workspace at ${path} (create one with 'fairground workspace init')`);
  return openWorkspace(path);
}

export const modelAddCommand: CliCommand = {
  path: ['model', 'add'],
  summary: 'Add a GGUF model to the workspace library (reads its header, hashes the file)',
  help: `Usage: fairground model add FILE.gguf [--name NAME] [--workspace PATH]

Checks the GGUF header, computes the file's SHA-256 (progress on stderr) and records the model.
The file stays where it is; the library stores its path.

      --name NAME          library name (default: the file name without .gguf)
${WORKSPACE_HELP}

Example: fairground model add ~/models/qwen2.5-7b-q4_k_m.gguf --name qwen7b`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, name: { type: 'string' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one GGUF file');
    const file = resolve(io.cwd, positionals[0] as string);
    // A folder (or a device) named instead of a file: say so with its path (issue 15 item 6).
    if (existsSync(file) && !statSync(file).isFile()) throw new DataError(statSync(file).isDirectory() ? 'is a folder, not a GGUF file' : 'is not a regular file', { file });
    const info = await readGgufMetadata(file);
    const name = values.name ?? basename(file).replace(/\.gguf$/i, '');
    const ws = openExistingWorkspace(values.workspace, io);
    try {
      const models = new ModelsRepo(ws.db);
      if (models.getByName(name)) throw new CliError(`a model named '${name}' is already in the library (choose another with --name)`);
      let shown = -1;
      const sha256 = await sha256File(file, ({ bytesDone, bytesTotal }) => {
        const pct = bytesTotal ? Math.floor((bytesDone / bytesTotal) * 100) : 100;
        if (pct >= shown + 10 || (pct === 100 && shown < 100)) {
          shown = pct;
          io.stderr.write(`hashing ${basename(file)}: ${pct}%\n`);
        }
      });
      const record = models.add({ name, path: file, size: info.fileSize, sha256, metadata: modelSummary(info) });
      io.stdout.write(
        `Added '${record.name}' (${info.architecture ?? 'unknown architecture'}, ${formatCount(info.parameterCount)} parameters, ${info.quantization}, ${formatBytes(info.fileSize)})\n  sha256 ${sha256}\n`,
      );
    } finally {
      ws.close();
    }
    return 0;
  },
};

export const modelListCommand: CliCommand = {
  path: ['model', 'list'],
  summary: 'List the models in the workspace library',
  help: `Usage: fairground model list [--workspace PATH] [--json]

${WORKSPACE_HELP}
      --json               print JSON`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, { ...workspaceOptionSpec, json: { type: 'boolean' } });
    const ws = openExistingWorkspace(values.workspace, io);
    try {
      const list = new ModelsRepo(ws.db).list();
      if (values.json) io.stdout.write(`${JSON.stringify(list)}\n`);
      else if (list.length === 0) io.stdout.write(`No models yet (add one with 'fairground model add FILE.gguf')\n`);
      else for (const m of list) io.stdout.write(`${libraryLine(m)}\n`);
    } finally {
      ws.close();
    }
    return 0;
  },
};

function libraryLine(m: ModelRecord): string {
  const params = typeof m.metadata.parameterCount === 'number' ? formatCount(m.metadata.parameterCount) : '?';
  const quant = typeof m.metadata.quantization === 'string' ? m.metadata.quantization : '?';
  const problem = m.error ? `  (${m.error})` : '';
  return `${m.name.padEnd(24)} ${m.status.padEnd(8)} ${params.padStart(7)} ${quant.padEnd(6)} ${formatBytes(m.size).padStart(10)}  ${m.sha256?.slice(0, 12) ?? '(not hashed)'}  ${m.path}${problem}`;
}

export const modelInfoCommand: CliCommand = {
  path: ['model', 'info'],
  summary: "Show a model's header facts (a GGUF path, or a library name)",
  help: `Usage: fairground model info MODEL [--workspace PATH] [--json]

MODEL is a GGUF file (read without loading weights) or the name of a model in the library.

${WORKSPACE_HELP}
      --json               print JSON`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, json: { type: 'boolean' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one model (a GGUF path or a library name)');
    const arg = positionals[0] as string;
    const file = resolve(io.cwd, arg);
    if (existsSync(file) && statSync(file).isFile()) {
      const info = await readGgufMetadata(file);
      if (values.json) io.stdout.write(`${JSON.stringify({ file, fileSize: info.fileSize, ...modelSummary(info), parametersByType: info.parametersByType })}\n`);
      else io.stdout.write(describe(file, info.fileSize, modelSummary(info)));
      return 0;
    }
    const ws = openExistingWorkspace(values.workspace, io);
    try {
      const m = new ModelsRepo(ws.db).getByName(arg);
      if (!m) throw new CliError(`no GGUF file '${arg}' and no model of that name in the library`);
      if (values.json) io.stdout.write(`${JSON.stringify(m)}\n`);
      else io.stdout.write(`${describe(m.path, m.size, m.metadata)}  library name ${m.name}, status ${m.status}${m.error ? ` (${m.error})` : ''}\n  sha256 ${m.sha256 ?? '(not hashed)'}\n`);
    } finally {
      ws.close();
    }
    return 0;
  },
};

function describe(file: string, size: number, s: Record<string, unknown>): string {
  const n = (v: unknown): string => (typeof v === 'number' ? String(v) : '?');
  return [
    `${file}`,
    `  architecture ${s.architecture ?? '?'}${s.name ? ` (${s.name})` : ''}`,
    `  parameters ${typeof s.parameterCount === 'number' ? formatCount(s.parameterCount) : '?'}, ${s.quantization ?? '?'}${s.fileType ? ` (${s.fileType})` : ''}, ${formatBytes(size)}`,
    `  context ${n(s.contextLength)}, embedding ${n(s.embeddingLength)}, layers ${n(s.layerCount)}, vocabulary ${n(s.vocabSize)}`,
    `  chat template ${s.hasChatTemplate ? 'yes' : 'no'}`,
    '',
  ].join('\n');
}

export const modelRemoveCommand: CliCommand = {
  path: ['model', 'remove'],
  summary: 'Remove a model from the library (the file is not deleted)',
  help: `Usage: fairground model remove NAME [--clear-cache] [--workspace PATH]

      --clear-cache        also delete the model's cached LLM calls
${WORKSPACE_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, 'clear-cache': { type: 'boolean' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one library name');
    const name = positionals[0] as string;
    const ws = openExistingWorkspace(values.workspace, io);
    try {
      const models = new ModelsRepo(ws.db);
      const m = models.getByName(name);
      if (!m) throw new CliError(`no model named '${name}' in the library`);
      models.remove(m.id);
      const cleared = values['clear-cache'] && m.sha256 ? new CallCacheRepo(ws.db).clearModel(m.sha256) : 0;
      io.stdout.write(`Removed '${name}' from the library (the file ${m.path} is untouched)${values['clear-cache'] ? `; cleared ${cleared} cached calls` : ''}\n`);
    } finally {
      ws.close();
    }
    return 0;
  },
};
