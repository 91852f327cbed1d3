import { describe, expect, it } from 'vitest';
import { computes, parseShard, shardOfKey } from '../../../src-main/engine/queue/callPolicy';
import { Slots } from '../../../src-main/engine/queue/slots';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('Slots (the engine work queue)', () => {
  it('keeps at most `capacity` calls in flight and serves waiters first come, first served', async () => {
    const slots = new Slots(() => 2);
    const order: number[] = [];
    const gates: Array<() => void> = [];
    const jobs = [0, 1, 2, 3, 4].map((i) =>
      slots.run(async () => {
        order.push(i);
        await new Promise<void>((r) => gates.push(r));
      }),
    );
    await tick();
    expect(order).toEqual([0, 1]);
    expect(slots.stats()).toEqual({ inFlight: 2, maxInFlight: 2, waiting: 3, capacity: 2 });
    gates[1]!();
    await tick();
    expect(order).toEqual([0, 1, 2]);
    gates[0]!();
    await tick();
    expect(order).toEqual([0, 1, 2, 3]);
    gates[2]!();
    gates[3]!();
    await tick();
    gates[4]!();
    await Promise.all(jobs);
    expect(slots.stats()).toEqual({ inFlight: 0, maxInFlight: 2, waiting: 0, capacity: 2 });
  });

  it('follows a capacity that grows while calls wait, and releases a slot when work throws', async () => {
    let capacity = 1;
    const slots = new Slots(() => capacity);
    const gates: Array<() => void> = [];
    const started: number[] = [];
    const jobs = [0, 1, 2].map((i) => slots.run(async () => (started.push(i), new Promise<void>((r) => gates.push(r)))));
    await tick();
    expect(started).toEqual([0]);
    capacity = 3;
    gates[0]!();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[1]!();
    gates[2]!();
    await Promise.all(jobs);
    await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(slots.stats().inFlight).toBe(0);
  });

  it('drops a waiter whose signal aborts, without it ever taking a slot', async () => {
    const slots = new Slots(() => 1);
    let release!: () => void;
    const first = slots.run(() => new Promise<void>((r) => (release = r)));
    const controller = new AbortController();
    let ran = false;
    const waiting = slots.run(async () => {
      ran = true;
    }, controller.signal);
    await tick();
    expect(slots.stats().waiting).toBe(1);
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(slots.stats().waiting).toBe(0);
    release();
    await first;
    expect(ran).toBe(false);
  });
});

describe('call policies', () => {
  it('shards keys deterministically by their first 52 bits', () => {
    // 0x0000000000007 = 7 → 7 mod 3 = 1; 0xfffffffffffff = 2^52 − 1 = 4503599627370495 → mod 3 = 0.
    expect(shardOfKey('0000000000007abc', 3)).toBe(1);
    expect(shardOfKey('fffffffffffff000', 3)).toBe(0);
    expect(shardOfKey('fffffffffffff000', 7)).toBe(4503599627370495 % 7);
  });

  it('computes exactly one shard of every key, and parses k/N', () => {
    const keys = Array.from({ length: 300 }, (_, i) => (i * 2654435761).toString(16).padStart(16, '0'));
    const shards = [1, 2, 3].map((k) => parseShard(`${k}/3`));
    for (const key of keys) expect(shards.filter((p) => computes(p, key)).length).toBe(1);
    expect(computes({ mode: 'defer' }, keys[0]!)).toBe(false);
    expect(computes({ mode: 'compute' }, keys[0]!)).toBe(true);
    expect(() => parseShard('0/3')).toThrow(/between 1 and N/);
    expect(() => parseShard('4/3')).toThrow(/between 1 and N/);
    expect(() => parseShard('two')).toThrow(/k\/N/);
  });
});
