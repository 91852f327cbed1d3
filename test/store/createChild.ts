/**
 * Child process of test/store/atomicCreate.test.ts: opens (creating if missing) the workspace named
 * by argv[2] and prints `opened SCHEMA APPLICATION_ID` — or, with FAIRGROUND_TEST_PAUSE_AT set, stops
 * itself at that phase of the creation for the test to kill or resume it.
 */
import { openWorkspace } from '../../src-main/store/workspace';

const ws = openWorkspace(process.argv[2]!);
const appId = ws.db.pragma('application_id', { simple: true }) as number;
process.stdout.write(`opened ${ws.schemaVersion} ${appId}\n`);
ws.close();
