import type { Plugin } from 'esbuild';

/** See bundleZod.mjs. */
export declare const bundleZod: Plugin;
