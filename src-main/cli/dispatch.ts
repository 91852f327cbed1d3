/**
 * The dispatch of `fairground` over a list of commands (cli/main.ts gives it every command, the
 * `eval ir` entry only that one): finds the command whose words match the longest prefix of argv,
 * handles --help at every level, and turns errors into one line on stderr and a non-zero exit.
 * It imports no command, so a bundle of one command holds only that command's modules.
 */
import { setFlagsFromString } from 'node:v8';
import { DataError } from '../core/errors';
import { CliError, type CliCommand, type CliCommandEntry, type CliIo } from './command';

export const VERSION_TEXT = 'fairground 0.1.0';

export async function dispatchCli(argv: string[], io: CliIo, commands: readonly CliCommandEntry[]): Promise<number> {
  const words = argv.filter((a) => !a.startsWith('-'));
  const wantsHelp = argv.includes('--help') || argv.includes('-h');

  if (argv.length === 0 || (argv[0] === 'help' && argv.length === 1)) {
    io.stdout.write(topLevelHelp(commands, []));
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === '-V') {
    io.stdout.write(`${VERSION_TEXT}\n`);
    return 0;
  }

  const best = findCommand(argv, commands);
  if (!best) {
    // A group prefix (e.g. `fairground eval`) lists its sub-commands.
    const group = commands.filter((c) => words.length > 0 && words.every((w, i) => c.path[i] === w));
    if (group.length > 0 && (wantsHelp || words.length === argv.length)) {
      io.stdout.write(topLevelHelp(group, words));
      return wantsHelp ? 0 : 2;
    }
    if (wantsHelp && argv[0]?.startsWith('-')) {
      io.stdout.write(topLevelHelp(commands, []));
      return 0;
    }
    io.stderr.write(`fairground: unknown command '${words.join(' ')}' (see 'fairground --help')\n`);
    return 2;
  }
  const rest = argv.slice(best.path.length);
  let command: CliCommand;
  try {
    // The command's module is imported only now (cli/commands/index.ts).
    command = 'load' in best ? await best.load() : best;
  } catch (err) {
    io.stderr.write(`fairground ${best.path.join(' ')}: cannot load the command: ${((err as Error).message ?? String(err)).split('\n')[0]}\n`);
    if (io.env.FAIRGROUND_DEBUG) io.stderr.write(`${(err as Error).stack ?? ''}\n`);
    return 1;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(command.help.endsWith('\n') ? command.help : `${command.help}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof CliError) {
      io.stderr.write(`fairground ${best.path.join(' ')}: ${bounded(err.message)}\n`);
      return err.exitCode;
    }
    if (err instanceof DataError) {
      io.stderr.write(`fairground ${best.path.join(' ')}: ${bounded(err.message)}\n`);
      return 2;
    }
    const e = err as Error & { code?: unknown };
    // SQLite errors surfacing from deep inside a command: say that the workspace file is involved.
    const sqlite = typeof e.code === 'string' && e.code.startsWith('SQLITE_') ? 'workspace database error: ' : '';
    io.stderr.write(`fairground ${best.path.join(' ')}: ${sqlite}${bounded((e.message ?? String(err)).split('\n')[0]!)}\n`);
    if (io.env.FAIRGROUND_DEBUG) io.stderr.write(`${e.stack ?? ''}\n`);
    return 1;
  }
}

/** The command whose path is the longest prefix of argv. */
function findCommand(argv: readonly string[], commands: readonly CliCommandEntry[]): CliCommandEntry | undefined {
  let best: CliCommandEntry | undefined;
  for (const cmd of commands) {
    if (cmd.path.every((w, i) => argv[i] === w) && (!best || cmd.path.length > best.path.length)) best = cmd;
  }
  return best;
}

function topLevelHelp(commands: readonly CliCommandEntry[], prefix: string[]): string {
  const rows = commands
    .slice()
    .sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')))
    .map((c) => `  ${c.path.join(' ').padEnd(24)} ${c.summary}`);
  const head = prefix.length ? `fairground ${prefix.join(' ')}` : 'fairground';
  return [
    `Usage: ${head} <command> [options]`,
    '',
    prefix.length ? 'Commands:' : 'Fairground: a workbench for fair and faithful retrieval-augmented generation.\n\nCommands:',
    ...rows,
    '',
    `Run 'fairground <command> --help' for a command's options.`,
    '',
  ].join('\n');
}

/** The process entry over `commands` (bin/fairground.js runs cli/main.ts `main`, or the `eval ir` entry's). */
export async function processMain(registered: readonly CliCommandEntry[]): Promise<void> {
  // `fairground … | head`: the reader closed the pipe. Stop quietly, as Unix tools do (exit
  // 141 = 128 + SIGPIPE), instead of an EPIPE stack trace (issue 15 item 6).
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(141);
    throw err;
  });
  const argv = process.argv.slice(2);
  const command = findCommand(argv, registered);
  if (command && 'streaming' in command && command.streaming) {
    // V8 grows the young generation to 2 × 16 MiB under a steady stream of short-lived strings
    // (one per run line). A command that reads a file once and keeps little does not need that:
    // kept at its initial size, `eval ir` on 500k lines peaks at ~70 MiB instead of ~110 MiB and
    // runs as fast (docs/performance.md). V8 reads this flag whenever it would grow the space, so
    // setting it now, before the input is read, takes effect; this process only.
    setFlagsFromString('--semi-space-growth-factor=1');
  }
  const code = await dispatchCli(
    argv,
    {
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      cwd: process.cwd(),
      env: process.env,
    },
    registered,
  );
  // Long-running commands (serve) return only when they are done; let pending I/O flush.
  process.exitCode = code;
}

/**
 * The last guard on an error line: values are quoted cut where the message is made (core/errors quoteValue); a
 * message that still runs past this many characters is cut here, its length said, so stderr gets a line, not megabytes.
 */
const MAX_ERROR_CHARS = 2000;
function bounded(message: string): string {
  return message.length <= MAX_ERROR_CHARS ? message : `${message.slice(0, MAX_ERROR_CHARS)}… (message cut: ${message.length} characters)`;
}
