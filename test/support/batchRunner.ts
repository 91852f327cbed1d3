/**
 * A stand-in for vLLM's `run-batch` entry point in tests: reads an OpenAI-Batch request file and
 * sends every line's body to a loopback OpenAI-compatible server (the same server a direct run
 * talks to), writing the OpenAI-Batch output format (`{id, custom_id, response: {status_code,
 * request_id, body}, error}` per line). Requests go out a few at a time, as a batch engine would.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export async function runBatchFile(requests: string, results: string, baseUrl: string, concurrency = 4): Promise<number> {
  const lines = readFileSync(requests, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { custom_id: string; method: string; url: string; body: unknown });
  const out: string[] = new Array(lines.length);
  let next = 0;
  const origin = baseUrl.replace(/\/v1\/?$/, '');
  const worker = async () => {
    while (next < lines.length) {
      const i = next++;
      const req = lines[i]!;
      const res = await fetch(`${origin}${req.url}`, { method: req.method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(req.body) });
      const body = (await res.json()) as unknown;
      out[i] = JSON.stringify({ id: `batch_req_${i}`, custom_id: req.custom_id, response: { status_code: res.status, request_id: `r${i}`, body }, error: null });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  writeFileSync(results, out.map((l) => `${l}\n`).join(''));
  return lines.length;
}
