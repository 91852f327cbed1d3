/**
 * A small OpenAI-compatible server on 127.0.0.1 for tests: the real client talks to it over
 * loopback, so requests, headers, status codes and bodies are the real thing.
 *
 * Responses follow the OpenAI API shapes (id, object, created, model, choices, usage; error
 * bodies `{error:{message,type,param,code}}`), plus vLLM's `stop_reason` and model `root` /
 * `max_model_len` extensions. Its "model" is a deterministic toy: text splits into word tokens
 * (each word with the whitespace before it), and a token's log-probability is a hash of the text
 * before it and the token — so tests can compute the expected numbers with the helpers exported
 * here, independently of the client code.
 *
 * Knobs: failure injection (next N requests fail with a status and Retry-After, or drop the
 * connection), echo support (`supported`, `reject` with 400, `ignore` like llama.cpp's server),
 * rejecting `max_tokens: 0` like vLLM, echoing a BOS token first like vLLM, a response delay,
 * bearer-token checking, shuffled embedding order. It counts requests and the most in flight.
 *
 * For endpoint pools: what GET /models says about the weights (`root` like vLLM, `meta` like
 * llama.cpp's server), a server that is down (`failAll`: every request fails), and a fixed
 * per-request delay (`delayMs`) so throughput is bounded by concurrency, as on a GPU server.
 *
 * Faults for pools (issue 24 item 7), all bounded in time and size and on 127.0.0.1 only: answers
 * naming another model (`answerModel`), a 200 answer that is not JSON or of the wrong shape
 * (`body`), a huge body sent in chunks (`hugeBytes`, trickled with `trickleMs`), a request that is
 * never answered until the client gives up (`hang`), and a restart on the same port (`stop()` then
 * `restart()`: connections are refused meanwhile, and the options may change, e.g. other weights).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAiOptions {
  models: string[];
  /** When set, every request must carry `Authorization: Bearer <apiKey>`. */
  apiKey: string | undefined;
  embeddingDimensions: number;
  echo: 'supported' | 'reject' | 'ignore';
  /** vLLM: "max_tokens must be at least 1". */
  rejectMaxTokensZero: boolean;
  /** vLLM echoes the decoded BOS token first, shifting every text_offset by its length. */
  bosToken: string | undefined;
  /** Wait this long before answering (timeouts, cancellation, concurrency). */
  delayMs: number;
  modelsEndpoint: boolean;
  /** Return embeddings in reverse order (the API orders by `index`, not by position). */
  reverseEmbeddings: boolean;
  /** vLLM's `root` in GET /models (the weights it loaded): undefined reports the model id, null leaves it out. */
  root: string | null | undefined;
  /** llama.cpp server's `meta` in GET /models (n_params, size, n_vocab, …). */
  meta: Record<string, number> | undefined;
  /** While set, every request fails this way (a replica that is down or overloaded). */
  failAll: InjectedFailure | undefined;
  /** POST /tokenize and /detokenize at the root, as llama.cpp's server or vLLM spell them (word tokens, ids by first use); off by default. */
  tokenizer: 'llama.cpp' | 'vllm' | undefined;
  /** Constraint fields the fake reads (a JSON schema in any other is ignored, as real servers do): all four by default. */
  constraintFields: Array<'response_format' | 'guided_json' | 'json_schema' | 'structured_outputs'>;
  /** Put before every free reply: other "weights" under the same name (weight fingerprints). */
  replyPrefix: string;
  /** The `model` named in answers, when not the one asked for (a replica serving something else). */
  answerModel: string | undefined;
  /** Called as each request arrives, before it is answered (e.g. to swap the weights between two requests). */
  onRequest?: ((request: RecordedRequest) => void) | undefined;
  /** llama.cpp's `GET /props` `total_slots` (only this field); undefined: no /props (HTTP 404). */
  slots?: number | undefined;
  /** Extra delay for POST requests only (GET /models stays fast): a replica slow at computing. */
  postDelayMs: number;
}

export interface InjectedFailure {
  status?: number;
  retryAfter?: string;
  retryAfterMs?: string;
  message?: string;
  /** Drop the connection without answering (a network error for the client). */
  disconnect?: boolean;
  /** Answer this raw body with this status (default 200): not JSON, or JSON of the wrong shape. */
  body?: string;
  /** Answer 200 with a JSON-looking body of this many bytes, sent in 64 KiB chunks. */
  hugeBytes?: number;
  /** With hugeBytes: wait this long between chunks (a trickle). */
  trickleMs?: number;
  /** Never answer; the request ends when the client disconnects (or the server closes). */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  at: number;
}

export interface FakeToken {
  text: string;
  /** In code points, as Python (and the OpenAI API) count characters. */
  offset: number;
}

/** Word tokens: each run of non-space characters with the whitespace before it; trailing whitespace alone. */
export function fakeTokenize(text: string, startOffset = 0): FakeToken[] {
  const out: FakeToken[] = [];
  let offset = startOffset;
  for (const match of text.matchAll(/\s*\S+|\s+/gu)) {
    out.push({ text: match[0], offset });
    offset += [...match[0]].length;
  }
  return out;
}

/** log P(token | context) of the toy model: in [-10.05, -0.05], depends on both. */
export function fakeTokenLogprob(context: string, token: string): number {
  const digest = createHash('sha256').update(context).update('\u0000').update(token).digest();
  return -(0.05 + (digest.readUInt32BE(0) % 10_000) / 1000);
}

/** What the toy model says to an input, before stop strings and max_tokens cut it. */
export function fakeReply(input: string): string {
  return `You said: ${input}`;
}

/** Deterministic unit vector from a hash of the text. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const values: number[] = [];
  for (let i = 0; values.length < dimensions; i++) {
    const digest = createHash('sha256').update(`${i}:${text}`).digest();
    for (let j = 0; j + 4 <= digest.length && values.length < dimensions; j += 4) {
      values.push(digest.readUInt32BE(j) / 0xffffffff - 0.5);
    }
  }
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

export class FakeOpenAiServer {
  readonly options: FakeOpenAiOptions;
  readonly requests: RecordedRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly failures: InjectedFailure[] = [];
  private server: http.Server;
  private nextId = 1;
  /** Chunks a huge or trickled body has written (bounded by its size). */
  bytesSent = 0;
  private port = 0;

  private constructor(options: Partial<FakeOpenAiOptions>) {
    this.options = {
      models: ['fake-model'],
      apiKey: undefined,
      embeddingDimensions: 8,
      echo: 'supported',
      rejectMaxTokensZero: false,
      bosToken: undefined,
      delayMs: 0,
      modelsEndpoint: true,
      replyPrefix: '',
      reverseEmbeddings: false,
      root: undefined,
      meta: undefined,
      failAll: undefined,
      tokenizer: undefined,
      constraintFields: ['response_format', 'guided_json', 'json_schema', 'structured_outputs'],
      answerModel: undefined,
      postDelayMs: 0,
      ...options,
    };
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  static async start(options: Partial<FakeOpenAiOptions> = {}): Promise<FakeOpenAiServer> {
    const fake = new FakeOpenAiServer(options);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Requests to one path (e.g. '/v1/completions'). */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** The next `count` requests (any path) fail this way. */
  failNext(count: number, failure: InjectedFailure): void {
    for (let i = 0; i < count; i++) this.failures.push(failure);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Goes down (open connections are dropped, new ones refused) until `restart()`. */
  async stop(): Promise<void> {
    await this.close();
  }

  /** Listens again on the same port, with some options changed (a replica restarted, perhaps with other weights). */
  async restart(changes: Partial<FakeOpenAiOptions> = {}): Promise<void> {
    Object.assign(this.options, changes);
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => this.inFlight--);

    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    let body: unknown;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const recorded: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body, at: Date.now() };
    this.requests.push(recorded);
    this.options.onRequest?.(recorded);

    const delay = this.options.delayMs + (req.method === 'POST' ? this.options.postDelayMs : 0);
    if (delay > 0) {
      const waited = await waitUnlessClosed(delay, res);
      if (!waited) return; // the client gave up
    }

    const failure = this.failures.shift() ?? this.options.failAll;
    if (failure?.disconnect) {
      req.socket.destroy();
      return;
    }
    if (failure?.hang) return; // ends when the client disconnects or the server closes
    if (failure?.body !== undefined) {
      if (res.destroyed) return;
      res.writeHead(failure.status ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(failure.body) });
      res.end(failure.body);
      return;
    }
    if (failure?.hugeBytes !== undefined) {
      await this.sendHuge(res, failure.hugeBytes, failure.trickleMs ?? 0);
      return;
    }
    if (failure) {
      const headers: Record<string, string> = {};
      if (failure.retryAfter !== undefined) headers['retry-after'] = failure.retryAfter;
      if (failure.retryAfterMs !== undefined) headers['retry-after-ms'] = failure.retryAfterMs;
      const status = failure.status ?? 503;
      const type = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
      sendJson(res, status, errorBody(new HttpFailure(status, failure.message ?? `injected failure ${status}`, type)), headers);
      return;
    }

    try {
      this.checkAuth(req);
      sendJson(res, 200, this.route(req.method ?? '', path, body));
    } catch (error) {
      if (error instanceof HttpFailure) sendJson(res, error.status, errorBody(error));
      else sendJson(res, 500, errorBody(new HttpFailure(500, String(error), 'server_error')));
    }
  }

  /** `{"choices":[{"text":"xxxx…` up to `bytes`, in 64 KiB chunks; stops as soon as the client goes away. */
  private async sendHuge(res: http.ServerResponse, bytes: number, trickleMs: number): Promise<void> {
    const head = '{"choices":[{"text":"';
    res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length announced
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    if (!res.write(head)) await drained(res);
    while (sent < bytes && !res.destroyed) {
      const ok = res.write(chunk);
      sent += chunk.length;
      this.bytesSent += chunk.length;
      if (!ok) await drained(res);
      if (trickleMs > 0) await new Promise((r) => setTimeout(r, trickleMs));
    }
    if (!res.destroyed) res.end('"}]}');
  }

  private checkAuth(req: http.IncomingMessage): void {
    if (this.options.apiKey === undefined) return;
    const given = req.headers.authorization ?? '';
    if (given === `Bearer ${this.options.apiKey}`) return;
    // Like a careless server, quote the key back: the client must not pass it on.
    const key = given.replace(/^Bearer /, '');
    throw new HttpFailure(401, `Incorrect API key provided: ${key}.`, 'invalid_request_error', null, 'invalid_api_key');
  }

  private route(method: string, path: string, body: unknown): unknown {
    if (method === 'GET' && path === '/v1/models' && this.options.modelsEndpoint) return this.models();
    if (method === 'GET' && path === '/props' && this.options.slots !== undefined) return { total_slots: this.options.slots };
    if (method === 'POST' && path === '/v1/chat/completions') return this.chat(asObject(body));
    if (method === 'POST' && path === '/v1/completions') return this.completion(asObject(body));
    if (method === 'POST' && path === '/v1/embeddings') return this.embeddings(asObject(body));
    if (method === 'POST' && (path === '/tokenize' || path === '/detokenize') && this.options.tokenizer) return this.tokenizer(path, asObject(body));
    throw new HttpFailure(404, `Unknown request URL: ${method} ${path}`, 'invalid_request_error', null, 'unknown_url');
  }

  private readonly vocab: string[] = [];

  /** llama.cpp: {content} → {tokens}, {tokens} → {content}; vLLM: {model, prompt} → {tokens, count}, {model, tokens} → {prompt}. */
  private tokenizer(path: string, body: Record<string, unknown>): unknown {
    const vllm = this.options.tokenizer === 'vllm';
    if (path === '/tokenize') {
      // vLLM tokenizes a chat as its route counts it (this fake's chat route: the messages' own tokens, no template).
      const messages = vllm && Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : undefined;
      const text = messages ? '' : vllm ? body.prompt : body.content;
      if (typeof text !== 'string') throw new HttpFailure(400, 'no text to tokenize', 'invalid_request_error', null, null);
      const pieces = messages ? messages.flatMap((m) => fakeTokenize(String(m.content))) : fakeTokenize(text);
      const tokens = pieces.map((t) => {
        const at = this.vocab.indexOf(t.text);
        return at >= 0 ? at : this.vocab.push(t.text) - 1;
      });
      return vllm ? { tokens, count: tokens.length, max_model_len: 4096 } : { tokens };
    }
    const ids = body.tokens;
    if (!Array.isArray(ids)) throw new HttpFailure(400, 'no tokens to detokenize', 'invalid_request_error', null, null);
    const text = ids.map((id) => this.vocab[Number(id)] ?? '').join('');
    return vllm ? { prompt: text } : { content: text };
  }

  private models(): unknown {
    return {
      object: 'list',
      data: this.options.models.map((id) => ({
        id,
        object: 'model',
        created: 1_700_000_000,
        owned_by: 'fairground-fake',
        ...(this.options.root === null ? {} : { root: this.options.root ?? id }),
        ...(this.options.meta ? { meta: this.options.meta } : {}),
        max_model_len: 4096,
      })),
    };
  }

  private chat(body: Record<string, unknown>): unknown {
    const model = this.checkModel(body);
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0) throw new HttpFailure(400, "'messages' must be a non-empty array", 'invalid_request_error', 'messages');
    for (const m of messages as Array<Record<string, unknown>>) {
      if (!['system', 'user', 'assistant'].includes(m?.role as string) || typeof m?.content !== 'string') {
        throw new HttpFailure(400, 'each message needs a role and string content', 'invalid_request_error', 'messages');
      }
    }
    const maxTokens = this.checkSampling(body);
    const last = (messages as Array<{ content: string }>).at(-1)!.content;
    const reply = this.decode(structuredReply(body, this.options.constraintFields) ?? this.options.replyPrefix + fakeReply(last), maxTokens, stopsOf(body));
    const promptTokens = (messages as Array<{ content: string }>).reduce((n, m) => n + fakeTokenize(m.content).length, 0);
    return {
      id: `chatcmpl-${this.nextId++}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: this.options.answerModel ?? model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.text },
          logprobs: null,
          finish_reason: reply.finishReason,
          stop_reason: reply.stopReason,
        },
      ],
      usage: { prompt_tokens: promptTokens, completion_tokens: reply.tokens.length, total_tokens: promptTokens + reply.tokens.length },
    };
  }

  private completion(body: Record<string, unknown>): unknown {
    const model = this.checkModel(body);
    // Token ids (as llama.cpp's server takes them) are read back through the fake's tokenizer vocabulary.
    const ids = body.prompt;
    const prompt = Array.isArray(ids) && this.options.tokenizer && ids.every((t) => Number.isInteger(t)) ? ids.map((id) => this.vocab[id as number] ?? '').join('') : body.prompt;
    if (typeof prompt !== 'string') throw new HttpFailure(400, "'prompt' must be a string", 'invalid_request_error', 'prompt');
    const maxTokens = this.checkSampling(body);
    const logprobs = body.logprobs;
    if (logprobs !== undefined && logprobs !== null && (!Number.isInteger(logprobs) || (logprobs as number) < 0 || (logprobs as number) > 5)) {
      throw new HttpFailure(400, "'logprobs' must be an integer from 0 to 5", 'invalid_request_error', 'logprobs');
    }
    const wantsEcho = body.echo === true;
    if (wantsEcho && this.options.echo === 'reject') {
      throw new HttpFailure(400, "Setting 'echo' and 'logprobs' at the same time is not supported for this model.", 'invalid_request_error', 'echo');
    }
    const echo = wantsEcho && this.options.echo === 'supported';
    const reply = this.decode(structuredReply(body, this.options.constraintFields) ?? this.options.replyPrefix + fakeReply(prompt), maxTokens, stopsOf(body));
    const bos = this.options.bosToken;
    const promptTokens = fakeTokenize(prompt).length + (bos !== undefined ? 1 : 0);

    let logprobsOut: unknown = null;
    const wantsLogprobs = typeof logprobs === 'number' && this.options.echo !== 'ignore';
    if (wantsLogprobs) logprobsOut = this.logprobsFor(prompt, reply.text, echo, logprobs);

    return {
      id: `cmpl-${this.nextId++}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: this.options.answerModel ?? model,
      choices: [{ index: 0, text: echo ? prompt + reply.text : reply.text, logprobs: logprobsOut, finish_reason: reply.finishReason, stop_reason: reply.stopReason }],
      usage: { prompt_tokens: promptTokens, completion_tokens: reply.tokens.length, total_tokens: promptTokens + reply.tokens.length },
    };
  }

  /**
   * OpenAI legacy logprobs: with echo, the prompt's tokens (the first has no context: null)
   * followed by the generated ones; offsets are cumulative characters of the token texts.
   */
  private logprobsFor(prompt: string, generated: string, echo: boolean, topCount: number): unknown {
    const bos = this.options.bosToken;
    const shift = bos !== undefined ? [...bos].length : 0;
    const promptLength = [...prompt].length;
    const input = fakeTokenize(prompt, shift);
    const output = fakeTokenize(generated, shift + promptLength);
    type Entry = { text: string; offset: number; logprob: number | null };
    const entries: Entry[] = [];
    if (bos !== undefined) entries.push({ text: bos, offset: 0, logprob: null });
    let context = '';
    for (const t of [...input, ...output]) {
      const first = bos === undefined && entries.length === 0;
      entries.push({ text: t.text, offset: t.offset, logprob: first ? null : fakeTokenLogprob(context, t.text) });
      context += t.text;
    }
    // Without echo, only generated tokens, with offsets counted from the start of the prompt.
    const shown = echo ? entries : entries.slice(entries.length - output.length).map((e) => ({ ...e, offset: e.offset - shift }));
    return {
      tokens: shown.map((e) => e.text),
      token_logprobs: shown.map((e) => e.logprob),
      top_logprobs: topCount > 0 ? shown.map((e) => (e.logprob === null ? null : { [e.text]: e.logprob })) : null,
      text_offset: shown.map((e) => e.offset),
    };
  }

  private embeddings(body: Record<string, unknown>): unknown {
    const model = this.checkModel(body);
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0 || input.some((t) => typeof t !== 'string')) {
      throw new HttpFailure(400, "'input' must be a string or a non-empty array of strings", 'invalid_request_error', 'input');
    }
    const data = (input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, this.options.embeddingDimensions) }));
    if (this.options.reverseEmbeddings) data.reverse();
    const tokens = (input as string[]).reduce((n, t) => n + fakeTokenize(t).length, 0);
    return { object: 'list', data, model: this.options.answerModel ?? model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
  }

  private checkModel(body: Record<string, unknown>): string {
    if (typeof body.model !== 'string') throw new HttpFailure(400, "'model' is required", 'invalid_request_error', 'model');
    if (!this.options.models.includes(body.model)) {
      throw new HttpFailure(404, `The model \`${body.model}\` does not exist.`, 'invalid_request_error', 'model', 'model_not_found');
    }
    return body.model;
  }

  /** Validates sampling fields like the OpenAI API; returns max_tokens (default 16, as the legacy API). */
  private checkSampling(body: Record<string, unknown>): number {
    const t = body.temperature;
    if (t !== undefined && (typeof t !== 'number' || t < 0 || t > 2)) {
      throw new HttpFailure(400, `${String(t)} is greater than the maximum of 2 - 'temperature'`, 'invalid_request_error', 'temperature');
    }
    const maxTokens = body.max_tokens ?? 16;
    if (!Number.isInteger(maxTokens) || (maxTokens as number) < 0) {
      throw new HttpFailure(400, "'max_tokens' must be a non-negative integer", 'invalid_request_error', 'max_tokens');
    }
    if (maxTokens === 0 && this.options.rejectMaxTokensZero) {
      throw new HttpFailure(400, 'max_tokens must be at least 1, got 0.', 'BadRequestError', 'max_tokens');
    }
    const format = body.response_format as Record<string, unknown> | undefined;
    if (format !== undefined) {
      const schema = format.json_schema as Record<string, unknown> | undefined;
      if (format.type !== 'json_schema' || typeof schema?.name !== 'string' || typeof schema.schema !== 'object') {
        throw new HttpFailure(400, "response_format json_schema needs 'name' and 'schema'", 'invalid_request_error', 'response_format');
      }
    }
    return maxTokens as number;
  }

  /** Cuts the reply at the first stop string (vLLM reports it in stop_reason), then at max_tokens. */
  private decode(reply: string, maxTokens: number, stops: string[]): { text: string; tokens: FakeToken[]; finishReason: string; stopReason: string | null } {
    let text = reply;
    let stopReason: string | null = null;
    let cut = Infinity;
    for (const stop of stops) {
      const at = reply.indexOf(stop);
      if (at >= 0 && at < cut) {
        cut = at;
        stopReason = stop;
      }
    }
    if (stopReason !== null) text = reply.slice(0, cut);
    const tokens = fakeTokenize(text);
    if (tokens.length > maxTokens) {
      const kept = tokens.slice(0, maxTokens);
      return { text: kept.map((t) => t.text).join(''), tokens: kept, finishReason: 'length', stopReason: null };
    }
    return { text, tokens, finishReason: 'stop', stopReason };
  }
}

function stopsOf(body: Record<string, unknown>): string[] {
  const stop = body.stop;
  if (typeof stop === 'string') return [stop];
  return Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string') : [];
}

/** With a JSON schema in a field the fake reads (response_format, vLLM's guided_json / structured_outputs, llama.cpp's json_schema), answer a value that fits it. */
function structuredReply(body: Record<string, unknown>, fields: FakeOpenAiOptions['constraintFields']): string | undefined {
  const format = body.response_format as { json_schema?: { schema?: unknown } } | undefined;
  const read = (field: (typeof fields)[number], value: unknown): unknown => (fields.includes(field) ? value : undefined);
  const schema =
    read('response_format', format?.json_schema?.schema) ??
    read('guided_json', body.guided_json) ??
    read('json_schema', body.json_schema) ??
    read('structured_outputs', (body.structured_outputs as { json?: unknown } | undefined)?.json);
  return schema === undefined ? undefined : JSON.stringify(exampleOf(schema));
}

function exampleOf(schema: unknown): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum[0];
  switch (s.type) {
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, exampleOf(v)]));
    }
    case 'array':
      return [exampleOf(s.items)];
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    default:
      return 'text';
  }
}

function asObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new HttpFailure(400, 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

function errorBody(error: HttpFailure): unknown {
  return { error: { message: error.message, type: error.type, param: error.param, code: error.code } };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Resolves when the response can take more data, or when it closes. */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}

/** Resolves true after `ms`, or false as soon as the client disconnects. */
function waitUnlessClosed(ms: number, res: http.ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, ms);
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    res.once('close', onClose);
  });
}
