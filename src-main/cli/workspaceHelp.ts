/**
 * The `--workspace PATH` option's spec and help line, without the workspace code (SQLite): a command
 * that opens a workspace only in some cases (`model try` with a library name) imports this and loads
 * `workspaceOption.ts` when it needs it.
 */
export const workspaceOptionSpec = { workspace: { type: 'string' as const, short: 'w' } };

export const WORKSPACE_HELP = `  -w, --workspace PATH   workspace file (default: $FAIRGROUND_WORKSPACE, else the user data folder)`;
