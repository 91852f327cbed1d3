/**
 * The calibrated estimate's arithmetic (tokenCalibration.ts, issue 35 item 7), with counters whose
 * costs are known by construction (a tokenizer is a function of the text; the real server's check
 * is test/engine/llamaServer/calibratedEstimate.test.ts): the fit recovers per-class costs and the
 * route's overhead, the cut is the longest prefix within the budget, a request's sample scales the
 * fit, a sample too long for the context is split and tried again, and a failing route is passed over.
 */
import { describe, expect, it } from 'vitest';
import { CALIBRATION_MARGIN, calibrate, calibratedCount, calibratedPrefix, calibratedTokenize, classBytes, PROBE_TEXTS, requestScale, sampledScale, type TokenCalibration } from '../../../src-main/engine/remote/tokenCalibration';
import { EngineError } from '../../../src-main/engine/types';

/** A tokenizer costing exactly `w` tokens per byte of each class (fractions summed, then rounded; a text is at least one token). */
function linear(w: [number, number, number, number], overhead: number) {
  return (text: string): number => overhead + Math.max(1, Math.round(classBytes(text).reduce((s, b, i) => s + b * w[i]!, 0)));
}

describe('token calibration', () => {
  it('sorts bytes into words, digits, symbols and other', () => {
    expect(classBytes('Ab 12.\né€')).toEqual([3, 2, 2, 5]);
  });

  it('recovers per-class costs and the route overheads from the probes', async () => {
    const w: [number, number, number, number] = [0.25, 1, 0.8, 0.5];
    const sent: string[] = [];
    const c = await calibrate(
      async (route, text) => {
        sent.push(`${route}:${text.slice(0, 5)}`);
        return linear(w, route === 'completions' ? 1 : 9)(text);
      },
      ['completions', 'chat'],
    );
    expect(sent).toEqual(['completions:a', ...Object.values(PROBE_TEXTS).map((t) => `completions:${t.slice(0, 5)}`), 'chat:a']);
    expect(c.probes).toBe(6);
    expect(c.textOverhead).toBe(1);
    expect(c.chatOverhead).toBe(9);
    // Rounding each probe's count moves a cost by at most 0.5 token over its class's bytes.
    for (const [i, x] of c.tokensPerByte.entries()) expect(Math.abs(x - w[i]!)).toBeLessThan(0.02);
  });

  it('passes over a route that fails, and fails naming every route when none answers', async () => {
    const c = await calibrate(
      async (route, text) => {
        if (route === 'completions') throw new EngineError('remote-error', 'POST /completions: HTTP 404');
        return linear([0.2, 1, 1, 1], 3)(text);
      },
      ['completions', 'chat'],
    );
    expect(c).toMatchObject({ route: 'chat', chatOverhead: 3, probes: 5 });
    expect(c.textOverhead).toBeUndefined();
    await expect(calibrate(async (route) => Promise.reject(new EngineError('remote-error', `${route} down`)), ['completions', 'chat'])).rejects.toThrow('completions down; chat down');
  });

  const c: TokenCalibration = { tokensPerByte: [0.25, 1, 1, 1], textOverhead: 1, chatOverhead: 9, probes: 6, route: 'completions' };

  it('counts with the margin and cuts the longest prefix within the budget, at a word boundary when one is near', () => {
    const text = 'abcd '.repeat(40).trim(); // 199 word bytes: 49.75 × 1.005 → 50
    expect(calibratedCount(text, c)).toBe(Math.ceil(199 * 0.25 * (1 + CALIBRATION_MARGIN)));
    expect(calibratedCount('', c)).toBe(0);
    const cut = calibratedPrefix(text, 20, c);
    expect(calibratedCount(cut, c)).toBeLessThanOrEqual(20);
    // 20 tokens / 0.25125 per byte = 79 bytes; the word boundary before it keeps 74 ("abcd " × 15 less the space).
    expect(cut).toBe('abcd '.repeat(15).trim());
    const r = calibratedTokenize({ texts: [text], asPrompt: 'chat' }, c, 'why');
    expect(r.counts).toEqual([50 + 9]);
    expect(r.estimate).toMatchObject({ reason: 'why', margin: '+1 per text prompt (measured), +9 per chat prompt (measured)' });
    expect(r.estimate!.method).toMatch(/^calibrated estimate \(6 probes\): .*\(words 4\.00, digits 1\.00, symbols 1\.00, other 1\.00\), counts raised 0\.5%$/);
  });

  it("scales the fit by a sample of the request's texts, split in two where the server refuses a prompt", async () => {
    const texts = Array.from({ length: 10 }, (_, i) => `word${i} `.repeat(30));
    const sent: number[] = [];
    const scale = await sampledScale(
      texts,
      c,
      async (text) => {
        sent.push(Buffer.byteLength(text));
        if (Buffer.byteLength(text) > 700) throw new EngineError('bad-request', 'exceeds the available context size');
        // Really 0.5 token per byte, twice the fit.
        return 1 + Math.round(Buffer.byteLength(text) * 0.5);
      },
      undefined,
    );
    expect(sent[0]).toBeGreaterThan(700);
    expect(scale.samples).toBe(10);
    expect(scale.requests).toBeGreaterThan(2);
    // "wordN " is 5 word bytes and 1 digit: fitted 0.25 × 5 + 1 = 2.25 tokens per 6 bytes, counted 3.
    expect(Math.abs(scale.factor - 3 / 2.25)).toBeLessThan(0.02);
    const r = calibratedTokenize({ texts: [texts[0]!] }, c, 'why', scale);
    expect(r.estimate!.method).toMatch(new RegExp(`^calibrated estimate \\(${6 + scale.requests} probes\\): .*, scaled ×[\\d.]+ by 10 of these texts counted the same way, counts raised 0\\.5%$`));
  });

  it('scales a request by its own sample, except texts to count or cut under 1,200 bytes: those keep the fit, so a cut and its count agree', async () => {
    let sent = 0;
    const counter = (text: string) => {
      sent++;
      // Really 1.3 × the fit, so a sampled scale shows.
      return Promise.resolve(1 + Math.round((calibratedCount(text, c) * 1.3) / (1 + CALIBRATION_MARGIN)));
    };
    const doc = 'abcd '.repeat(40);
    const none = await requestScale({ texts: [doc] }, () => sampledScale([doc], c, counter, undefined));
    expect(none).toEqual({ factor: 1, samples: 0, requests: 0 });
    expect(sent).toBe(0);
    // The cut and the count of the cut use one scale: the cut's count is within its budget.
    const cut = calibratedTokenize({ texts: [doc], maxTokens: 20 }, c, 'why', none).truncated![0]!;
    expect(calibratedTokenize({ texts: [cut] }, c, 'why', none).counts[0]).toBeLessThanOrEqual(20);
    // A whole prompt is its own sample (so its count is the server's), with the largest ratio of its samples.
    const whole = await requestScale({ texts: [doc], asPrompt: 'text' }, () => sampledScale([doc], c, counter, undefined));
    expect(sent).toBe(1);
    expect(whole.requests).toBe(1);
    expect(Math.abs(whole.factor - 1.3)).toBeLessThan(0.05);
    expect(whole.upper).toBe(whole.factor);
    expect(calibratedTokenize({ texts: [doc], asPrompt: 'text' }, c, 'why', whole).counts[0]).toBe(calibratedCount(doc, c, whole.upper) + 1);
    // Texts of 1,200 bytes or more are sampled as before; the same request gives the same scale (every process alike).
    const large = Array.from({ length: 10 }, (_, i) => `word${i} `.repeat(30));
    const one = await requestScale({ texts: large }, () => sampledScale(large, c, counter, undefined));
    const two = await requestScale({ texts: large }, () => sampledScale(large, c, counter, undefined));
    expect(one.requests).toBeGreaterThan(0);
    expect(two).toEqual(one);
  });
});
