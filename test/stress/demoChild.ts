/**
 * The process demoKill.stress.ts kills: a first start on a workspace (what `fairground serve`,
 * the desktop app and `fairground run` on a demo spec do before anything else) — open the
 * workspace and set up the demo (generated tiny model, demo collection, demo conversations).
 * Prints one JSON line with the result.
 *
 *   node --import tsx test/stress/demoChild.ts WORKSPACE
 */
import { createAppServices } from '../../src-main/services/appServices';
import { ensureDemo } from '../../src-main/services/demoSetup';

const [workspace] = process.argv.slice(2) as [string];
const services = createAppServices(workspace, { transport: 'http', markInterrupted: false });
const result = await ensureDemo(services);
await services.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
