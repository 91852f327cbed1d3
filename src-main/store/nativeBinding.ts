/**
 * better-sqlite3 is a native addon compiled for one ABI. Plain Node (tests, CLI, browser mode) uses
 * the build npm made in node_modules; Electron needs a build against Electron's headers, which
 * `npm run rebuild:electron` writes to a separate path so both can live in one checkout.
 * (Build for Electron only in a copy: rebuilding in place replaces the Node build that tests and the CLI use.)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export function electronBindingPath(root: string, modulesAbi: string, arch = process.arch): string {
  return join(root, 'native', `electron-abi${modulesAbi}-${process.platform}-${arch}`, 'better_sqlite3.node');
}

/**
 * The `nativeBinding` option for `new Database(...)`, or undefined to use the default Node build.
 * Under Electron, a missing Electron build is an error with the command that makes it.
 */
export function chooseNativeBinding(
  versions: NodeJS.ProcessVersions = process.versions,
  root: string = process.env.FAIRGROUND_ROOT ?? process.cwd(),
  resourcesPath?: string,
): string | undefined {
  const electron = (versions as Record<string, string | undefined>).electron;
  if (!electron) return undefined;
  const candidates = [
    resourcesPath ? electronBindingPath(join(resourcesPath, 'app.asar.unpacked'), versions.modules) : undefined,
    electronBindingPath(root, versions.modules),
  ].filter((p): p is string => p !== undefined);
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      `better-sqlite3 has no build for Electron ${electron} (ABI ${versions.modules}); run 'npm run rebuild:electron' (looked in ${candidates.join(', ')})`,
    );
  }
  return found;
}
