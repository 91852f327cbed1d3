/** The experiment kinds this version of Fairground can run. Add a kind by registering it here. */
import { fairRagKind } from './fair-rag/kind';
import { moiKind } from './moi/kind';
import { ExperimentRegistry } from './registry';
import { richRagKind } from './richrag/kind';

export function defaultExperimentRegistry(): ExperimentRegistry {
  const registry = new ExperimentRegistry();
  registry.register(fairRagKind);
  registry.register(richRagKind);
  registry.register(moiKind);
  return registry;
}
