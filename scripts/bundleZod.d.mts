import type { Plugin } from 'esbuild';

/** See bundleZod.mjs. */
export declare const bundleZod: Plugin;

/** See bundleZod.mjs. */
export declare const createRequireBanner: string;

/** See bundleZod.mjs. */
export declare function mainBundleOptions(root: string, outdir: string): import('esbuild').BuildOptions;

/** See bundleZod.mjs. */
export declare const importMetaUrlParam: string;

/** See bundleZod.mjs. */
export declare function mainCjsBundleOptions(root: string, outdir: string): import('esbuild').BuildOptions;
