/** How the cost estimate writes its figures (durations: s, min, h; token counts: k, M), and how long a start waits for one. */

/** 42 s, 3 min 5 s, 2 h 10 min. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) {
    const m = Math.floor(s / 60);
    const r = s % 60;
    return r ? `${m} min ${r} s` : `${m} min`;
  }
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  return m ? `${h} h ${m} min` : `${h} h`;
}

/** 950, 12.3k, 4.56M (rounded to whole tokens first). */
export function formatTokens(tokens: number): string {
  const t = Math.round(tokens);
  if (t < 10_000) return t.toLocaleString('en-US');
  if (t < 1_000_000) return `${(t / 1000).toFixed(1)}k`;
  return `${(t / 1_000_000).toFixed(2)}M`;
}

/** Waits for `p` to settle, but `ms` at most (an estimate in flight must not hold up a start for long). */
export function settleOrTimeout(p: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!p) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void p.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
