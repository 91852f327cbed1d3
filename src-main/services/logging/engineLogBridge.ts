/**
 * Connects the local engine's diagnostics (engine/local/engineLog.ts: the parent's start/load/exit
 * lines, the worker process's stdout/stderr lines, llama.cpp's warnings) to the app's rotating log,
 * each line tagged with its source (`engine`, `engine-worker`, `llama.cpp`). Returns the function
 * that detaches it (restoring the sink it replaced).
 */
import { setEngineLogSink } from '../../engine/local/engineLog';
import type { RotatingLog } from './rotatingLog';

export function attachEngineLog(log: RotatingLog): () => void {
  const previous = setEngineLogSink((level, source, message) => log.write(level, source, message));
  return () => {
    setEngineLogSink(previous);
  };
}
