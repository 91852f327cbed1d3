/**
 * Where the local engine's diagnostics go (issue 17 item 7): the app installs a sink (the rotating
 * log file, services/logging/engineLogBridge.ts) and every engine writes to it, tagged by source:
 *   - `engine`: the parent's own lines (worker started with its pid, model loaded, worker exited);
 *   - `engine-worker`: each line the worker process writes to stdout/stderr (console output,
 *     GGML_ASSERT messages before an abort);
 *   - `llama.cpp`: node-llama-cpp's logger (llama.cpp's warnings and errors).
 * Without a sink (CLI commands, most tests) nothing is written. The sink must not throw.
 */
export type EngineLogLevel = 'info' | 'warn' | 'error';
export type EngineLogSink = (level: EngineLogLevel, source: string, message: string) => void;

let sink: EngineLogSink | null = null;

/** Install (or with null remove) the process-wide sink; returns the one it replaced. */
export function setEngineLogSink(next: EngineLogSink | null): EngineLogSink | null {
  const previous = sink;
  sink = next;
  return previous;
}

export function engineLog(level: EngineLogLevel, source: string, message: string): void {
  if (!sink) return;
  try {
    sink(level, source, message);
  } catch {
    // A log that cannot be written must not fail an engine call.
  }
}

/** node-llama-cpp's level names (fatal, error, warn, info, log, debug) on the log's three levels. */
export function logLevelOf(level: string): EngineLogLevel {
  const l = level.toLowerCase();
  if (l === 'fatal' || l === 'error') return 'error';
  if (l === 'warn' || l === 'warning') return 'warn';
  return 'info';
}

/** Splits a stream into complete lines (a chunk may end mid-line); `flush` returns the rest. */
export class LineSplitter {
  private rest = '';
  push(chunk: string): string[] {
    const text = this.rest + chunk;
    const parts = text.split(/\r?\n/);
    this.rest = parts.pop() ?? '';
    // A runaway line without a newline is cut rather than kept growing.
    if (this.rest.length > 8192) {
      parts.push(this.rest);
      this.rest = '';
    }
    return parts.filter((l) => l.trim() !== '');
  }
  flush(): string[] {
    const rest = this.rest;
    this.rest = '';
    return rest.trim() ? [rest] : [];
  }
}
