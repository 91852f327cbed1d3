/** `fairground serve`: the app in the browser, on 127.0.0.1 only. */
import { spawn } from 'node:child_process';
import { numberOption, parseCliArgs } from '../args';
import type { CliCommand } from '../command';
import { WORKSPACE_HELP, resolveWorkspacePath, workspaceOptionSpec } from '../workspaceOption';
import type { ServedApp } from '../../server/browserMode';
import { startOpeningBrowserMode } from '../../server/openingBrowserMode';
import { defaultLogFolder } from '../../services/logging/rotatingLog';

/** How long a stop may take before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 8_000;

export const serve: CliCommand = {
  path: ['serve'],
  summary: 'Serve the app in the browser (127.0.0.1 only, token-protected)',
  help: `Usage: fairground serve [--port N] [--workspace PATH] [--no-open] [--no-demo] [--in-process]

Starts browser mode and prints one line:
  Fairground is running at http://127.0.0.1:PORT/?token=TOKEN
The token changes at every launch; API requests without it are refused.
The page is served at once; the workspace opens behind it (integrity check, migrations, the demo
on a fresh workspace) while the page shows "Opening workspace…" and the step, and the server
prints "Workspace: PATH" when it is open (with --in-process it opens before the server listens).
Settings → Add folder prints a one-time code here (stderr): type it in the page to allow the folder
(a request with the token alone cannot add one).

      --port N           port to listen on (default: a free port)
${WORKSPACE_HELP}
      --no-open          do not open a browser window
      --no-demo          do not add the demo collection and the generated tiny model to a fresh workspace
      --in-process       run the services and SQLite in the server's thread (default: a worker thread,
                         so imports and metrics never stall the server)
Stop with Ctrl-C.`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, { ...workspaceOptionSpec, port: { type: 'string', short: 'p' }, 'no-open': { type: 'boolean' }, 'no-demo': { type: 'boolean' }, 'in-process': { type: 'boolean' } });
    const port = numberOption(values.port, 'port', { integer: true, min: 0, max: 65535 }) ?? 0;
    const workspacePath = resolveWorkspacePath(values.workspace, io);
    const options = {
      workspacePath,
      port,
      onInternalError: (err: unknown) => io.stderr.write(`internal error: ${(err as Error).stack ?? String(err)}\n`),
      logFolder: defaultLogFolder(io.env),
    };
    const signalled = new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    let app: ServedApp;
    if (values['in-process']) {
      // Everything in this thread: the workspace opens before the server listens.
      const { startBrowserMode } = await import('../../server/browserMode');
      app = await startBrowserMode(options);
      if (!values['no-demo']) await app.host.ensureDemo((m) => io.stderr.write(`${m}\n`));
      io.stdout.write(`Fairground is running at ${app.server.launchUrl}\n`);
      io.stderr.write(`Workspace: ${app.host.workspacePath}\n`);
      if (!values['no-open']) openBrowser(app.server.launchUrl);
    } else {
      // Issue 25 item 2: the app page is served at once; the services start in a worker thread
      // (issue 17 item 6) and open the workspace behind it, while the page shows the step.
      const opening = await startOpeningBrowserMode({
        ...options,
        demo: !values['no-demo'],
        onDemoLog: (m) => io.stderr.write(`${m}\n`),
        onHostExit: (reason) => io.stderr.write(`the services stopped (${reason}): API calls fail until Fairground is restarted\n`),
      });
      app = opening;
      io.stdout.write(`Fairground is running at ${app.server.launchUrl}\n`);
      io.stderr.write(`Opening the workspace ${workspacePath}…\n`);
      if (!values['no-open']) openBrowser(app.server.launchUrl);
      const first = await Promise.race([opening.opened.then(() => null, (err: unknown) => ({ err })), signalled.then(() => null)]);
      if (first) {
        // The workspace could not be opened: the same error as before the server was served first.
        await app.close();
        throw first.err;
      }
      if (opening.host.startup.state === 'ready') io.stderr.write(`Workspace: ${app.host.workspacePath}\n`);
    }
    const signal = await signalled;
    // Stop within seconds (issue 15 item 4): running jobs are cancelled and awaited (their work so
    // far is kept and resumable); a job that does not stop in time, or a second signal, ends the
    // process anyway — SQLite keeps every committed transaction either way.
    io.stderr.write(`${signal}: stopping (running jobs are cancelled and can be resumed)…\n`);
    const force = (why: string) => {
      io.stderr.write(`${why}: exiting now\n`);
      process.exit(1);
    };
    const timer = setTimeout(() => force(`still stopping after ${SHUTDOWN_GRACE_MS / 1000} s`), SHUTDOWN_GRACE_MS);
    timer.unref();
    const again = () => force('second signal');
    process.once('SIGINT', again);
    process.once('SIGTERM', again);
    await app.close();
    clearTimeout(timer);
    process.off('SIGINT', again);
    process.off('SIGTERM', again);
    return 0;
  },
};

function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {
      // No browser opener on this machine: the printed URL is enough.
    });
    child.unref();
  } catch {
    // same as above
  }
}
