import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../../src-main/engine/remote/semaphore';

describe('Semaphore', () => {
  it('admits at most `limit` at once, in arrival order', async () => {
    const semaphore = new Semaphore(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        semaphore.run(async () => {
          order.push(i);
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 5));
          running--;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('drops a waiter whose signal aborts, without losing the slot', async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire();
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    release();
    release(); // a second release is a no-op
    const again = await semaphore.acquire();
    again();
  });
});
