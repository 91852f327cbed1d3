import { describe, expect, it } from 'vitest';
import { isInsecureRemote, resolveModelUrl } from '../../../src-main/engine/download/modelUrl';

describe('resolveModelUrl', () => {
  it('maps hf: to the Hugging Face resolve URL on main', () => {
    const source = resolveModelUrl('hf:TheBloke/Llama-2-7B-GGUF/llama-2-7b.Q4_K_M.gguf');
    expect(source.url.href).toBe('https://huggingface.co/TheBloke/Llama-2-7B-GGUF/resolve/main/llama-2-7b.Q4_K_M.gguf');
    expect(source.fileName).toBe('llama-2-7b.Q4_K_M.gguf');
  });

  it('keeps sub-folders, encodes each segment, and honours another hub', () => {
    const source = resolveModelUrl('hf:org/repo/sub dir/model.gguf', 'http://127.0.0.1:9999/');
    expect(source.url.href).toBe('http://127.0.0.1:9999/org/repo/resolve/main/sub%20dir/model.gguf');
    expect(source.fileName).toBe('model.gguf');
  });

  it('takes http(s) URLs as they are, with the last segment as the file name', () => {
    expect(resolveModelUrl('https://example.org/a/b%20c.gguf?download=1').fileName).toBe('b c.gguf');
  });

  it('warns only for plain http beyond loopback', () => {
    expect(isInsecureRemote(new URL('http://example.org/x'))).toBe(true);
    expect(isInsecureRemote(new URL('http://127.0.0.1:8080/x'))).toBe(false);
    expect(isInsecureRemote(new URL('http://[::1]/x'))).toBe(false);
    expect(isInsecureRemote(new URL('http://localhost/x'))).toBe(false);
    expect(isInsecureRemote(new URL('https://example.org/x'))).toBe(false);
  });
});
