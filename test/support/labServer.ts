/**
 * The setup of the tests that run experiments on a remote model (issue 37): a demo workspace
 * (test/experiments/fixture.ts) in a fresh temporary folder, with a loopback OpenAI-compatible server
 * (fakeOpenAiServer.ts) serving `lab-model`, registered as the vLLM remote `lab` (4 calls at once).
 * Tests copy `base` (copyWorkspace) for each case.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppServices } from '../../src-main/services/appServices';
import { makeDemoWorkspace } from '../experiments/fixture';
import { FakeOpenAiServer, type FakeOpenAiOptions } from './fakeOpenAiServer';

export interface Lab {
  /** The temporary folder (workspaces, spec files, outputs). */
  dir: string;
  /** The demo workspace with the remote `lab` registered (`dir/base.fairground`). */
  base: string;
  server: FakeOpenAiServer;
}

/** Starts the server (`models: ['lab-model']` plus `options`) and builds the workspace. */
export async function startLab(prefix: string, options: Partial<FakeOpenAiOptions> = {}): Promise<Lab> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const server = await FakeOpenAiServer.start({ models: ['lab-model'], ...options });
  const base = await makeDemoWorkspace(dir, 'base.fairground');
  const s = createAppServices(base, { transport: 'http' });
  try {
    await s.models.addRemote({ name: 'lab', baseUrl: server.baseUrl, model: 'lab-model', serverKind: 'vllm', maxConcurrency: 4 });
  } finally {
    await s.close();
  }
  return { dir, base, server };
}

/** Closes the server and removes the folder (either may be missing when the setup failed). */
export async function stopLab(dir: string | undefined, server: FakeOpenAiServer | undefined): Promise<void> {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
