import { describe, expect, it } from 'vitest';
import { codePointLength, continuationLogprobs } from '../../../src-main/engine/remote/echoLogprobs';

// prompt "The cat sa" + continuation "t down", tokenized "The| cat| sat| down".
const echoed = {
  tokens: ['The', ' cat', ' sat', ' down'],
  token_logprobs: [null, -1, -2, -3],
  text_offset: [0, 3, 7, 11],
};

describe('continuationLogprobs', () => {
  it('takes the tokens ending after the prompt; a straddling token is continuation', () => {
    expect(continuationLogprobs(echoed, 4, 't down')).toEqual({ tokens: [' sat', ' down'], logprobs: [-2, -3], promptTokens: 2 });
    expect(continuationLogprobs(echoed, 4, ' down')).toEqual({ tokens: [' down'], logprobs: [-3], promptTokens: 3 });
  });

  it('ignores generated tokens after the echoed ones', () => {
    const withGenerated = {
      tokens: [...echoed.tokens, ' now'],
      token_logprobs: [...echoed.token_logprobs, -9],
      text_offset: [...echoed.text_offset, 16],
    };
    expect(continuationLogprobs(withGenerated, 4, ' down').tokens).toEqual([' down']);
  });

  it('anchors at the end, so a leading BOS token does not shift the boundary', () => {
    const withBos = {
      tokens: ['<s>', ...echoed.tokens],
      token_logprobs: [null, -0.5, -1, -2, -3],
      text_offset: [0, 3, 6, 10, 14],
    };
    expect(continuationLogprobs(withBos, 5, ' down')).toEqual({ tokens: [' down'], logprobs: [-3], promptTokens: 4 });
  });

  it('rejects responses that did not echo the input', () => {
    const generatedOnly = { tokens: [' x'], token_logprobs: [-1], text_offset: [10] };
    expect(() => continuationLogprobs(generatedOnly, 0, ' down')).toThrow(/cannot score/);
    expect(() => continuationLogprobs({ ...echoed, text_offset: [0] }, 4, ' down')).toThrow(/cannot score/);
  });

  it('counts characters as code points, as Python servers do', () => {
    expect(codePointLength('🌤 a')).toBe(3);
  });
});
