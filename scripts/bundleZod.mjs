/**
 * How dist/main is bundled (scripts/build.mjs; the entry tests bundle with the same options): the
 * esbuild plugin that bundles zod, and the options of the ES module bundles and of runMain's
 * CommonJS twin (mainBundleOptions, mainCjsBundleOptions, at the end).
 *
 * zod is bundled rather than loaded from node_modules: its package is about 100 ES modules (every
 * locale included), and resolving, reading and linking them cost a process that starts (`fairground
 * run`, the engine's parent) about 0.09 s of CPU, against 0.03 s for the bundled code. Only our own
 * code uses zod at run time, so one copy per bundle is the only copy.
 *
 * zod's namespace `z` re-exports `locales`, every translation of its error messages: about 360 kB of
 * the 750 kB zod bundles to, which every process that loads a bundle using `z` parsed (issue 25). We
 * never call `z.config(z.locales.…())`, and zod's own default is English (its schemas.js imports
 * locales/en.js itself), so the locales index is bundled with English only: `z.locales.en` stays.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const bundleZod = {
  name: 'bundle-zod',
  setup(b) {
    b.onResolve({ filter: /^zod(\/.*)?$/ }, (a) => ({ path: fileURLToPath(import.meta.resolve(a.path)) }));
    b.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (a) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(a.path),
    }));
  },
};

/** What an ES module bundle of dist/main starts with: `require` for the CommonJS packages it keeps external. */
export const createRequireBanner = "import { createRequire as __fgCreateRequire } from 'node:module'; const require = __fgCreateRequire(import.meta.url);";

/**
 * The esbuild options of every ES module bundle of dist/main (scripts/build.mjs adds source maps and its
 * metafile; the entry tests bundle with exactly these): native and heavy packages external, zod bundled.
 */
export function mainBundleOptions(root, outdir) {
  return {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    outdir,
    format: 'esm',
    plugins: [bundleZod],
    banner: { js: createRequireBanner },
  };
}

/** The wrapper parameter that stands for `import.meta.url` in a CommonJS twin (bin/codeCache.js passes it). */
export const importMetaUrlParam = '__fgImportMetaUrl';

/**
 * The esbuild options of a one-file entry's CommonJS twin (dist/main/runMain.cjs beside runMain.js):
 * the same bundle as CommonJS, which bin/codeCache.js compiles through vm.Script with V8's code cache
 * (Node 20 gives ES modules none). `import.meta.url` becomes a parameter of that wrapper; `require` is
 * the wrapper's own.
 */
export function mainCjsBundleOptions(root, outdir) {
  const { banner: _esmOnly, ...esm } = mainBundleOptions(root, outdir);
  return { ...esm, format: 'cjs', define: { 'import.meta.url': importMetaUrlParam }, outExtension: { '.js': '.cjs' } };
}
