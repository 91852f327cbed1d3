/** The layering rule of eslint.config.js catches each forbidden import (and lets allowed ones pass). */
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function layeringErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(process.cwd(), file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering lint rule', () => {
  it('keeps core pure', async () => {
    expect(await layeringErrors('src-main/core/x.ts', "import { openWorkspace } from '../store/workspace';\nexport const a = openWorkspace;\n")).toHaveLength(1);
    expect(await layeringErrors('src-main/core/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n")).toHaveLength(1);
    expect(await layeringErrors('src-main/core/x.ts', "import { createRng } from './random/rng';\nexport const a = createRng;\n")).toHaveLength(0);
  });

  it('lets only src-main/app import electron', async () => {
    const code = "import { app } from 'electron';\nexport const a = app;\n";
    expect(await layeringErrors('src-main/services/x.ts', code)).toHaveLength(1);
    expect(await layeringErrors('src-main/cli/x.ts', code)).toHaveLength(1);
    expect(await layeringErrors('src-main/app/x.ts', code)).toHaveLength(0);
  });

  it('keeps lower layers from reaching up', async () => {
    expect(await layeringErrors('src-main/store/x.ts', "import { JobRunner } from '../services/jobRunner';\nexport const a = JobRunner;\n")).toHaveLength(1);
    expect(await layeringErrors('src-main/engine/x.ts', "import { serve } from '../cli/commands/serve';\nexport const a = serve;\n")).toHaveLength(1);
    expect(await layeringErrors('src-main/services/x.ts', "import { startHttpServer } from '../server/httpServer';\nexport const a = startHttpServer;\n")).toHaveLength(1);
  });

  it('keeps the handlers above the services and below the transports, and the api below both', async () => {
    // services and experiments never reach up into the handlers (the handlers call them)
    expect(await layeringErrors('src-main/services/x.ts', "import { createApiRouter } from '../handlers/index';\nexport const a = createApiRouter;\n")).toHaveLength(1);
    expect(await layeringErrors('src-main/experiments/x.ts', "import { ExperimentService } from '../services/experimentService';\nexport const a = ExperimentService;\n")).toHaveLength(1);
    // the api (contract and router) imports no service, experiment or handler
    expect(await layeringErrors('src-main/api/x.ts', "import { ExperimentService } from '../services/experimentService';\nexport const a = ExperimentService;\n")).toHaveLength(1);
    expect(await layeringErrors('src-main/api/x.ts', "import { createHandlers } from '../handlers/index';\nexport const a = createHandlers;\n")).toHaveLength(1);
    expect(await layeringErrors('src-main/api/x.ts', "import { DataError } from '../core/errors';\nexport const a = DataError;\n")).toHaveLength(0);
    // handlers call services and the router; the transports use the handlers, never the reverse
    expect(await layeringErrors('src-main/handlers/x.ts', "import type { AppServices } from '../services/appServices';\nimport { createRouter } from '../api/router';\nexport type A = AppServices;\nexport const a = createRouter;\n")).toHaveLength(0);
    expect(await layeringErrors('src-main/handlers/x.ts', "import { startHttpServer } from '../server/httpServer';\nexport const a = startHttpServer;\n")).toHaveLength(1);
    expect(await layeringErrors('src-main/server/x.ts', "import { createApiRouter } from '../handlers/index';\nexport const a = createApiRouter;\n")).toHaveLength(0);
    expect(await layeringErrors('src-main/store/x.ts', "import { createApiRouter } from '../handlers/index';\nexport const a = createApiRouter;\n")).toHaveLength(1);
  });

  it('lets the renderer import only the contract and its own code', async () => {
    expect(await layeringErrors('src-renderer/src/x.ts', "import { openWorkspace } from '../../src-main/store/workspace';\nexport const a = openWorkspace;\n")).toHaveLength(1);
    expect(await layeringErrors('src-renderer/src/x.ts', "import type { Job } from '$contract';\nexport type A = Job;\n")).toHaveLength(0);
    expect(await layeringErrors('src-main/api/contract/x.ts', "import { DataError } from '../../core/errors';\nexport const a = DataError;\n")).toHaveLength(1);
  });
});
