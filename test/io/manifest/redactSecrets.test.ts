import { describe, expect, it } from 'vitest';
import { isSecretKey, REDACTED, redactSecrets, redactString } from '../../../src-main/io/manifest/redactSecrets';

describe('redactSecrets', () => {
  const input = {
    apiKey: 'sk-live-1',
    maxTokens: 512,
    promptTokens: 3,
    tokenizer: 'spm',
    nested: {
      api_key: 'sk-live-2',
      OPENAI_API_KEY: 'sk-live-3',
      headers: { Authorization: 'Bearer sk-live-4', 'X-Api-Key': 'sk-live-5', accept: 'json' },
      list: [{ password: 'hunter2', token: 'tok-6', hfToken: 'hf_7', clientSecret: 'cs-8', privateKey: 'pk-9', seed: 42 }],
    },
    baseUrl: 'https://alice:pw-10@llm.example/v1?api_key=sk-live-11&model=m',
    command: 'curl -H "Authorization: Bearer sk-live-12" https://llm.example',
  };

  it('redacts secret keys at every depth and keeps ordinary parameters', () => {
    const out = redactSecrets(input);
    expect(out.apiKey).toBe(REDACTED);
    expect(out.nested.api_key).toBe(REDACTED);
    expect(out.nested.OPENAI_API_KEY).toBe(REDACTED);
    expect(out.nested.headers).toEqual({ Authorization: REDACTED, 'X-Api-Key': REDACTED, accept: 'json' });
    expect(out.nested.list[0]).toEqual({ password: REDACTED, token: REDACTED, hfToken: REDACTED, clientSecret: REDACTED, privateKey: REDACTED, seed: 42 });
    expect(out.maxTokens).toBe(512);
    expect(out.promptTokens).toBe(3);
    expect(out.tokenizer).toBe('spm');
  });

  it('masks credentials inside strings (URL user info, query keys, Bearer)', () => {
    const out = redactSecrets(input);
    expect(out.baseUrl).toBe(`https://${REDACTED}@llm.example/v1?api_key=${REDACTED}&model=m`);
    expect(out.command).toBe(`curl -H "Authorization: Bearer ${REDACTED}" https://llm.example`);
    expect(redactString('https://llm.example/v1?model=m')).toBe('https://llm.example/v1?model=m');
  });

  it('leaves no secret anywhere in the serialised output and does not mutate the input', () => {
    const json = JSON.stringify(redactSecrets(input));
    for (const secret of ['sk-live', 'hunter2', 'tok-6', 'hf_7', 'cs-8', 'pk-9', 'pw-10']) expect(json).not.toContain(secret);
    expect(input.apiKey).toBe('sk-live-1');
    expect(input.nested.headers.Authorization).toBe('Bearer sk-live-4');
  });

  it('classifies keys by whole words', () => {
    for (const k of ['apiKey', 'api-key', 'APIKey', 'secret_key', 'accessToken', 'auth', 'cookie', 'credentials', 'passwd']) expect(isSecretKey(k)).toBe(true);
    for (const k of ['maxTokens', 'tokensPerSecond', 'keywords', 'monkey', 'key', 'sortKey', 'authorName', 'secretary']) {
      // 'authorName' → [author, name]; 'secretary' is one word
      expect(isSecretKey(k)).toBe(false);
    }
  });

  it('refuses cyclic input', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(() => redactSecrets(a)).toThrow(/cyclic/);
  });
});
