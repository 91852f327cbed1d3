/** `fairground workspace init|info|migrate|check`. */
import { existsSync, statSync } from 'node:fs';
import { parseCliArgs } from '../args';
import { CliError, type CliCommand } from '../command';
import { WORKSPACE_HELP, resolveWorkspacePath, workspaceOptionSpec } from '../workspaceOption';
import { inspectWorkspace, openWorkspace } from '../../store/workspace';
import { WorkspaceService } from '../../services/workspaceService';

export const workspaceInit: CliCommand = {
  path: ['workspace', 'init'],
  summary: 'Create a workspace file (or bring an existing one up to date)',
  help: `Usage: fairground workspace init [--workspace PATH]

Creates the workspace and its schema. An existing workspace is migrated, never overwritten. An empty
(0-byte) file is made a workspace only here; every other command refuses one.
${WORKSPACE_HELP}

Example: fairground workspace init --workspace ~/lab/fair-rag.fairground`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, workspaceOptionSpec);
    const path = resolveWorkspacePath(values.workspace, io);
    const existed = existsSync(path) && statSync(path).size > 0;
    const ws = openWorkspace(path, { createFromEmpty: true }); // init may make a workspace of an empty file; other commands refuse one
    ws.close();
    io.stdout.write(`${existed ? 'Opened' : 'Created'} workspace ${ws.path} (schema ${ws.schemaVersion})\n`);
    return 0;
  },
};

export const workspaceInfo: CliCommand = {
  path: ['workspace', 'info'],
  summary: 'Show a workspace: path, schema, size and row counts (read-only)',
  help: `Usage: fairground workspace info [--workspace PATH] [--json]

${WORKSPACE_HELP}
      --json             print JSON`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, { ...workspaceOptionSpec, json: { type: 'boolean' } });
    const path = resolveWorkspacePath(values.workspace, io);
    const state = inspectWorkspace(path);
    if (!state.exists) throw new CliError(`no workspace at ${path} (create one with 'fairground workspace init')`);
    if (state.pending.length > 0) {
      const msg = { path, schemaVersion: state.schemaVersion, latestSchemaVersion: state.latestVersion, pendingMigrations: state.pending };
      io.stdout.write(values.json ? `${JSON.stringify(msg)}\n` : `Workspace ${path}\n  schema ${state.schemaVersion}, needs migrations ${state.pending.join(', ')} ('fairground workspace migrate')\n`);
      return 0;
    }
    const ws = openWorkspace(path, { migrate: false });
    try {
      const info = new WorkspaceService(ws).info();
      if (values.json) io.stdout.write(`${JSON.stringify(info)}\n`);
      else {
        io.stdout.write(`Workspace ${info.path}\n  schema ${info.schemaVersion} (latest ${info.latestSchemaVersion})\n  size ${info.sizeBytes} bytes\n`);
        for (const [table, n] of Object.entries(info.counts)) io.stdout.write(`  ${table.padEnd(20)} ${n}\n`);
      }
    } finally {
      ws.close();
    }
    return 0;
  },
};

export const workspaceMigrate: CliCommand = {
  path: ['workspace', 'migrate'],
  summary: 'Apply pending schema migrations to a workspace',
  help: `Usage: fairground workspace migrate [--workspace PATH]

${WORKSPACE_HELP}`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, workspaceOptionSpec);
    const path = resolveWorkspacePath(values.workspace, io);
    const before = inspectWorkspace(path);
    if (!before.exists) throw new CliError(`no workspace at ${path} (create one with 'fairground workspace init')`);
    const ws = openWorkspace(path);
    ws.close();
    io.stdout.write(
      before.pending.length === 0
        ? `Workspace ${ws.path} is up to date (schema ${ws.schemaVersion})\n`
        : `Migrated ${ws.path} from schema ${before.schemaVersion} to ${ws.schemaVersion}\n`,
    );
    return 0;
  },
};

export const workspaceCheck: CliCommand = {
  path: ['workspace', 'check'],
  summary: 'Run an integrity check of a workspace',
  help: `Usage: fairground workspace check [--workspace PATH] [--quick]

${WORKSPACE_HELP}
      --quick            PRAGMA quick_check instead of the full integrity_check`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, { ...workspaceOptionSpec, quick: { type: 'boolean' } });
    const path = resolveWorkspacePath(values.workspace, io);
    if (!inspectWorkspace(path).exists) throw new CliError(`no workspace at ${path}`);
    // Opened without the integrity gate (issue 15): reporting the damage is the point.
    const ws = openWorkspace(path, { migrate: false, checkIntegrity: false });
    try {
      // Checked in place, not as a job: a check must not write a job row into the file it checks.
      const never = new AbortController().signal;
      const result = await new WorkspaceService(ws).check(
        { signal: never, jobId: 'cli', progress: () => {}, throwIfCancelled: () => {} },
        !values.quick,
      );
      if (result.ok) io.stdout.write(`ok: ${ws.path} is healthy\n`);
      else for (const p of result.problems) io.stdout.write(`problem: ${p}\n`);
      return result.ok ? 0 : 1;
    } finally {
      ws.close();
    }
  },
};
