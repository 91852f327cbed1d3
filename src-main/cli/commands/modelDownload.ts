/**
 * `fairground model download URL`: fetch a GGUF (https:// or hf:<owner>/<repo>/<file>) into the
 * models folder beside the workspace, resuming an interrupted download, checking the SHA-256, and
 * adding it to the library.
 */
import { parseCliArgs } from '../args';
import { CliError, type CliCommand } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { createCliAppServices } from './cliAppServices';

export const modelDownloadCommand: CliCommand = {
  path: ['model', 'download'],
  summary: 'Download a GGUF (https:// or hf:) into the models folder and add it to the library',
  help: `Usage: fairground model download URL [--sha256 HEX] [--name NAME] [--workspace PATH]

Downloads into the 'models' folder beside the workspace file (progress on stderr). An interrupted
download resumes where it stopped when run again; with --sha256 the file is checked and a
mismatch deletes it.

URL is https://… (http:// only for servers on this machine) or hf:<owner>/<repo>/<file>
(Hugging Face, main branch).
      --sha256 HEX         expected SHA-256 of the file
      --name NAME          library name (default: the file name without .gguf)
${WORKSPACE_HELP}

Example: fairground model download hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q8_0.gguf`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, sha256: { type: 'string' }, name: { type: 'string' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one URL');
    const url = positionals[0] as string;
    if (!/^(https?:\/\/|hf:)/.test(url)) throw new CliError(`not a download URL: '${url}' (use https://… or hf:<owner>/<repo>/<file>)`);
    if (values.sha256 !== undefined && !/^[0-9a-fA-F]{64}$/.test(values.sha256)) throw new CliError('--sha256 must be 64 hex digits');
    const s = createCliAppServices(values.workspace, io);
    let last = -1;
    const off = s.events.subscribe((e) => {
      if (e.event !== 'job.updated' || e.payload.kind !== 'models.download') return;
      const j = e.payload;
      const pct = j.total ? Math.floor((100 * j.progress) / j.total) : -1;
      if (pct >= last + 10 || j.status !== 'running') {
        last = pct;
        io.stderr.write(`${j.status === 'running' ? `downloading: ${j.total ? `${pct}%` : `${Math.round(j.progress / 1024)} KiB`}` : j.status}\n`);
      }
    });
    try {
      const job = s.models.startDownload({ url, sha256: values.sha256?.toLowerCase(), name: values.name, hubBaseUrl: io.env.FAIRGROUND_HF_BASE_URL });
      const done = await s.jobs.wait(job.id);
      if (done.status !== 'succeeded') throw new CliError(done.error ?? `download ${done.status}`, 1);
      const result = done.result as { modelId: number; sha256: string; resumedFromBytes: number };
      const model = s.models.get(result.modelId);
      io.stdout.write(`Added '${model.name}' (${model.path})${result.resumedFromBytes ? `, resumed from byte ${result.resumedFromBytes}` : ''}\n  sha256 ${result.sha256}\n`);
      return 0;
    } finally {
      off();
      await s.close();
    }
  },
};
