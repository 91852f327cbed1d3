/**
 * Electron's safeStorage works only in the main process, and SecretStore's cipher is synchronous
 * (it seals and opens keys inside synchronous service code). The host, on its own thread, asks the
 * client over the port and blocks on a shared buffer (Atomics.wait) until the client's thread,
 * whose event loop is free, answers: a synchronous cipher across threads. Keys are short; a
 * larger answer than the shared buffer holds is an error, never a truncated key.
 */
import type { OsCipher } from '../services/secrets';
import type { FromHost } from './protocol';

const WAITING = 0;
const OK = 1;
const FAILED = 2;
/** Room for one answer: an API key sealed by the OS keychain is a few hundred bytes. */
export const CIPHER_DATA_BYTES = 64 * 1024;

export interface CipherBuffers {
  control: SharedArrayBuffer;
  data: SharedArrayBuffer;
}

export function cipherBuffers(): CipherBuffers {
  return { control: new SharedArrayBuffer(8), data: new SharedArrayBuffer(CIPHER_DATA_BYTES) };
}

/** The host's side: an OsCipher whose every operation is answered by the client's cipher. */
export function proxiedCipher(buffers: CipherBuffers, post: (m: FromHost) => void, timeoutMs = 30_000): OsCipher {
  const control = new Int32Array(buffers.control);
  const data = new Uint8Array(buffers.data);
  const ask = (op: 'encrypt' | 'decrypt', input: string): string => {
    Atomics.store(control, 0, WAITING);
    post({ type: 'cipher', op, input });
    if (Atomics.wait(control, 0, WAITING, timeoutMs) === 'timed-out') throw new Error(`the OS keychain did not answer within ${timeoutMs / 1000} s`);
    const text = Buffer.from(data.subarray(0, Atomics.load(control, 1))).toString('utf8');
    if (Atomics.load(control, 0) === FAILED) throw new Error(text);
    return text;
  };
  return {
    isEncryptionAvailable: () => true,
    encryptString: (plain) => Buffer.from(ask('encrypt', plain), 'base64'),
    decryptString: (sealed) => ask('decrypt', sealed.toString('base64')),
  };
}

/** The client's side: answers one request with the real cipher and wakes the host. */
export function answerCipher(buffers: CipherBuffers, cipher: OsCipher, op: 'encrypt' | 'decrypt', input: string): void {
  const control = new Int32Array(buffers.control);
  const data = new Uint8Array(buffers.data);
  let state = OK;
  let answer: Buffer;
  try {
    answer = Buffer.from(op === 'encrypt' ? cipher.encryptString(input).toString('base64') : cipher.decryptString(Buffer.from(input, 'base64')), 'utf8');
    if (answer.length > data.length) throw new Error(`the OS keychain's answer (${answer.length} bytes) is larger than ${data.length} bytes`);
  } catch (err) {
    state = FAILED;
    answer = Buffer.from((err as Error).message.slice(0, 1000), 'utf8');
  }
  data.set(answer);
  Atomics.store(control, 1, answer.length);
  Atomics.store(control, 0, state);
  Atomics.notify(control, 0);
}
