import { writeOutputFile } from '../io/outputTarget';
import { CliError } from './command';

/** An output file through io/outputTarget (atomic, never over a FIFO, device or folder); a refusal is a CLI error. */
export function writeOutput(path: string, content: string, shown: string): void {
  try {
    writeOutputFile(path, content, shown);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(code ? `cannot write ${shown} (${code})` : (err as Error).message);
  }
}
