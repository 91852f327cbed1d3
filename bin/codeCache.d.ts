/** See codeCache.js. */
export declare function codeCacheDir(env?: Record<string, string | undefined>, platform?: NodeJS.Platform, home?: string): string | null;
export declare function codeCacheKey(bundle: Buffer, env?: Record<string, string | undefined>): string;
export declare function parseCacheFile(bytes: Buffer): { data: Buffer; complete: boolean; afterRejection: boolean } | null;
export declare function cacheFileBytes(data: Buffer, complete: boolean, afterRejection?: boolean): Buffer;
export declare function loadWithCodeCache(
  file: string,
  opts?: { dir?: string | null; complete?: boolean; env?: Record<string, string | undefined> },
): { exports: Record<string, unknown>; status: 'none' | 'accepted' | 'rejected' | 'corrupt' | 'unsafe' | 'off'; cacheFile: string | null; done(succeeded: boolean): void };
export declare function runEntry(cjsFile: string, esmFile: string, argv?: string[], env?: Record<string, string | undefined>): Promise<void>;
