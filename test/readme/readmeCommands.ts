/**
 * The README's shell examples, read from README.md itself (issue 26 item 1), so that a README edit
 * is what the test runs: every fenced `sh` block and every inline `npx fairground …` span that is a
 * complete command (no placeholder such as MODEL or <command>), in document order, with the README
 * line each starts on. Backslash-continued lines are joined; comments and blank lines dropped.
 */
export interface ReadmeCommand {
  /** The file it was read from, relative to the repository (README.md, docs/cli.md, …). */
  file: string;
  /** 1-based line of that file where the command starts. */
  line: number;
  /** The command as a shell would read it (continuations joined). */
  text: string;
  /** Index of its fenced block (numbered across every file read), or -1 for an inline span. */
  block: number;
}

/**
 * README.md and then every `docs/*.md` page it links, in the order of their first link (issue 37
 * item 5: the long sections moved to docs/, and their commands still run).
 */
export function documentedCommands(read: (file: string) => string): ReadmeCommand[] {
  const files = ['README.md', ...linkedDocs(read('README.md'))];
  const out: ReadmeCommand[] = [];
  for (const file of files) {
    const blocks = out.reduce((n, c) => Math.max(n, c.block + 1), 0);
    for (const c of readmeCommands(read(file), file)) out.push({ ...c, block: c.block < 0 ? -1 : c.block + blocks });
  }
  return out;
}

/** The `docs/*.md` pages a markdown file links, each once, in order of first link. */
export function linkedDocs(markdown: string): string[] {
  const seen: string[] = [];
  for (const m of markdown.matchAll(/\]\((docs\/[^)#\s]+\.md)(#[^)]*)?\)/g)) if (!seen.includes(m[1]!)) seen.push(m[1]!);
  return seen;
}

export function readmeCommands(markdown: string, file = 'README.md'): ReadmeCommand[] {
  const lines = markdown.split('\n');
  const out: ReadmeCommand[] = [];
  let block = -1;
  let inSh = false;
  let inOther = false;
  let pending: { line: number; text: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const fence = /^```(\S*)/.exec(raw);
    if (fence) {
      if (inSh || inOther) {
        inSh = inOther = false;
        continue;
      }
      if (fence[1] === 'sh' || fence[1] === 'bash') {
        inSh = true;
        block++;
      } else inOther = true;
      continue;
    }
    if (inOther) continue;
    if (inSh) {
      const trimmed = raw.trim();
      if (pending === undefined && (trimmed === '' || trimmed.startsWith('#'))) continue;
      const continues = trimmed.endsWith('\\');
      const piece = continues ? trimmed.slice(0, -1).trim() : trimmed;
      pending = pending ? { line: pending.line, text: `${pending.text} ${piece}` } : { line: i + 1, text: piece };
      if (!continues) {
        out.push({ file, line: pending.line, text: stripComment(pending.text), block });
        pending = undefined;
      }
      continue;
    }
    for (const m of raw.matchAll(/`(npx fairground [^`]+)`/g)) {
      const text = m[1]!.trim();
      if (/<|\b[A-Z][A-Z_]{2,}\b|…/.test(text)) continue; // a template, not a command
      out.push({ file, line: i + 1, text, block: -1 });
    }
  }
  return out;
}

/** Drops a trailing `# comment` outside quotes. */
function stripComment(command: string): string {
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(command[i - 1]!))) return command.slice(0, i).trim();
  }
  return command.trim();
}

export function isFairgroundCommand(c: ReadmeCommand): boolean {
  return /(^|[|;&]\s*)npx fairground\b/.test(c.text);
}
