/**
 * Dead exports of src-main (issue 37 item 3): an exported name of a src-main file that no other file
 * of the repository imports — not src-main, not the renderer (its `.svelte` scripts included), not the
 * tests, not the scripts. Such an export is either dead code or a local helper that need not be
 * exported. Found with the TypeScript parser, syntactically (fast: no type check):
 *
 * - every `import { a, b as c } from`, `import d from`, `export { a } from`, `export * from` is
 *   resolved (relative paths, `$contract`, `$core/*`) to a file and the names it takes;
 * - `import * as ns` takes the names read as `ns.name` in that file;
 * - `import('…')` (lazy loading) and `typeof import('…').Name` take the names read off it;
 * - a name taken from a file that re-exports it (`export { a } from`, `export * from`) is followed
 *   to the file that declares it.
 *
 * Run `npx tsx test/lint/deadExports.ts` to list them; test/lint/deadExports.test.ts fails on any
 * that is not in its allowlist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = fileURLToPath(import.meta.url);
const repo = resolve(dirname(here), '..', '..');

const SOURCE_DIRS = ['src-main', 'src-renderer/src', 'test', 'scripts'];
const ROOT_FILES = ['vitest.config.ts', 'vitest.stress.config.ts', 'vite.config.ts', 'eslint.config.js'];

function walk(dir: string): string[] {
  const abs = join(repo, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const path = join(dir, name);
    return statSync(join(repo, path)).isDirectory() ? walk(path) : /\.(ts|mts|mjs|js|svelte)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The script blocks of a Svelte component, as one TypeScript text. */
function svelteScript(text: string): string {
  return [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
}

const EXTENSIONS = ['', '.ts', '.svelte.ts', '.mts', '.mjs', '.js', '/index.ts', '/index.js'];

function resolveSpecifier(from: string, spec: string): string | undefined {
  let base: string;
  if (spec === '$contract') base = 'src-main/api/contract/index';
  else if (spec.startsWith('$core/')) base = `src-main/core/${spec.slice('$core/'.length)}`;
  else if (spec.startsWith('.')) base = relative(repo, resolve(repo, dirname(from), spec));
  else return undefined;
  const stripped = base.replace(/\.(js|mjs)$/, '');
  for (const candidate of [base, ...EXTENSIONS.map((e) => stripped + e)]) {
    const abs = join(repo, candidate);
    if (existsSync(abs) && statSync(abs).isFile()) return relative(repo, abs);
  }
  return undefined;
}

interface FileFacts {
  /** Names declared and exported here ('default' for a default export). */
  declared: Set<string>;
  /** Exported here, taken from another file: exported name → [file, name there]. */
  reexported: Map<string, [string, string]>;
  /** `export * from`. */
  star: string[];
}

export interface DeadExport {
  file: string;
  name: string;
  line: number;
  /** A type (interface, type alias) rather than a value (function, class, const, enum). */
  type: boolean;
  /** The file itself uses the name (only the `export` keyword is superfluous). */
  usedLocally: boolean;
}

const hasExport = (node: ts.Node): boolean => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const hasDefault = (node: ts.Node): boolean => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

/** The names read as `<id>.name` anywhere in the text. */
function memberReads(text: string, id: string): string[] {
  return [...text.matchAll(new RegExp(`\\b${id.replace(/\$/g, '\\$')}\\s*\\??\\.\\s*([A-Za-z_$][\\w$]*)`, 'g'))].map((m) => m[1]!);
}

export function findDeadExports(): DeadExport[] {
  const files = [...SOURCE_DIRS.flatMap(walk), ...ROOT_FILES.filter((f) => existsSync(join(repo, f)))];
  const facts = new Map<string, FileFacts>();
  const lines = new Map<string, Map<string, number>>();
  const typeNames = new Map<string, Set<string>>();
  const texts = new Map<string, string>();
  /** [file, name] taken by some other file. */
  const uses: [string, string, string][] = [];
  const allOf = new Set<string>();

  for (const file of files) {
    const raw = readFileSync(join(repo, file), 'utf8');
    const text = file.endsWith('.svelte') ? svelteScript(raw) : raw;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.svelte') || /\.m?ts$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS);
    const own: FileFacts = { declared: new Set(), reexported: new Map(), star: [] };
    const at = new Map<string, number>();
    const types = new Set<string>();
    facts.set(file, own);
    lines.set(file, at);
    typeNames.set(file, types);
    texts.set(file, text);
    const declare = (name: string, node: ts.Node) => {
      own.declared.add(name);
      if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) types.add(name);
      at.set(name, source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    };
    const take = (spec: string, name: string) => {
      const target = resolveSpecifier(file, spec);
      if (target && target !== file) uses.push([target, name, file]);
    };

    for (const statement of source.statements) {
      if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
        const spec = statement.moduleSpecifier.text;
        const clause = statement.importClause;
        if (!clause) continue;
        if (clause.name) take(spec, 'default');
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) take(spec, (el.propertyName ?? el.name).text);
        else if (bindings && ts.isNamespaceImport(bindings)) for (const name of memberReads(text, bindings.name.text)) take(spec, name);
      } else if (ts.isExportDeclaration(statement)) {
        const spec = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : undefined;
        const clause = statement.exportClause;
        if (spec === undefined) {
          // export { a, b as c }: local names exported.
          if (clause && ts.isNamedExports(clause)) for (const el of clause.elements) declare(el.name.text, el);
          continue;
        }
        const target = resolveSpecifier(file, spec);
        if (!clause) {
          if (target) own.star.push(target);
        } else if (ts.isNamedExports(clause)) {
          for (const el of clause.elements) if (target) own.reexported.set(el.name.text, [target, (el.propertyName ?? el.name).text]);
        } else if (target) allOf.add(target); // export * as ns from
      } else if (ts.isExportAssignment(statement)) {
        declare('default', statement);
      } else if (hasExport(statement)) {
        if (hasDefault(statement)) declare('default', statement);
        else if (ts.isVariableStatement(statement)) {
          for (const d of statement.declarationList.declarations) {
            if (ts.isIdentifier(d.name)) declare(d.name.text, d);
            else for (const el of d.name.elements) if (ts.isBindingElement(el) && ts.isIdentifier(el.name)) declare(el.name.text, el);
          }
        } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) declare((statement.name as ts.Identifier).text, statement);
      }
    }

    // import('…') and typeof import('…').Name anywhere in the file.
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const arg = node.arguments[0];
        if (arg && ts.isStringLiteralLike(arg)) {
          const target = resolveSpecifier(file, arg.text);
          if (target) {
            // The names read off the module: `.then((m) => m.name)`, `const { a } = await import(…)`, `(await import(…)).a`.
            let holder: ts.Node = node;
            while (holder.parent && !ts.isStatement(holder.parent) && !ts.isPropertyAssignment(holder.parent)) holder = holder.parent;
            const around = (holder.parent ?? holder).getText(source);
            const names = new Set([...around.matchAll(/\.\s*([A-Za-z_$][\w$]*)/g)].map((m) => m[1]!));
            for (const m of around.matchAll(/\{([^}]*)\}\s*=\s*await\s+import/g)) for (const part of m[1]!.split(',')) names.add(part.split(':')[0]!.trim());
            for (const name of names) if (name) uses.push([target, name, file]);
          }
        }
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        const target = resolveSpecifier(file, node.argument.literal.text);
        if (target && node.qualifier) uses.push([target, ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier.left.getText(source), file]);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }

  // Follow each use to the file that declares the name.
  const used = new Set<string>();
  const seen = new Set<string>();
  const work = uses.map(([f, n]) => [f, n] as [string, string]);
  while (work.length > 0) {
    const [file, name] = work.pop()!;
    const key = `${file}\0${name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const f = facts.get(file);
    if (!f) continue;
    if (f.declared.has(name)) used.add(key);
    const re = f.reexported.get(name);
    if (re) work.push(re);
    for (const s of f.star) work.push([s, name]);
  }

  const dead: DeadExport[] = [];
  for (const [file, f] of facts) {
    if (!file.startsWith('src-main/') || allOf.has(file)) continue;
    for (const name of f.declared) {
      if (used.has(`${file}\0${name}`)) continue;
      const occurrences = name === 'default' ? 0 : [...texts.get(file)!.matchAll(new RegExp(`(?<![\\w$])(?<![^.]\\.)${name.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'))].length;
      dead.push({ file, name, line: lines.get(file)!.get(name) ?? 0, type: typeNames.get(file)!.has(name), usedLocally: occurrences > 1 });
    }
  }
  return dead.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
}

if (process.argv[1] && resolve(process.argv[1]) === here) {
  for (const d of findDeadExports()) console.log(`${d.file}:${d.line} ${d.name} ${d.type ? 'type' : 'value'} ${d.usedLocally ? 'local' : 'UNUSED'}`);
}
