/**
 * The projected number of queries for a target power (services/simulation/powerProjection.ts), hand-computed:
 * q' = q·((z_{1−α/2} + z_P)·s/m)² from the runs' mean difference m and their spread s.
 */
import { describe, expect, it } from 'vitest';
import { projectQueries } from '../../../src-main/services/simulation/powerProjection';

describe('projectQueries', () => {
  it('matches the normal approximation (hand-computed)', () => {
    // m = 0.2, s = 0.1; z_0.975 + z_0.8 = 1.959964 + 0.841621 = 2.801585; (2.801585·0.1/0.2)² = 1.962220; ×12 = 23.55 → 24.
    expect(projectQueries(12, [0.1, 0.2, 0.3], 0.05, 0.8)).toBe(24);
    // α/5 = 0.01: z_0.995 = 2.575829; (3.417450·0.5)² = 2.919733; ×12 = 35.04 → 36.
    expect(projectQueries(12, [0.1, 0.2, 0.3], 0.01, 0.8)).toBe(36);
    // The sign of the difference does not matter; a larger effect needs fewer queries.
    expect(projectQueries(12, [-0.1, -0.2, -0.3], 0.05, 0.8)).toBe(24);
    expect(projectQueries(12, [0.3, 0.4, 0.5], 0.05, 0.8)).toBe(Math.ceil(12 * ((2.8015852 * 0.1) / 0.4) ** 2));
  });

  it('projects nothing without enough runs, spread or effect', () => {
    expect(projectQueries(12, [0.1, 0.2], 0.05, 0.8)).toBeNull();
    expect(projectQueries(12, [0.2, 0.2, 0.2], 0.05, 0.8)).toBeNull();
    expect(projectQueries(12, [-0.1, 0, 0.1], 0.05, 0.8)).toBeNull();
  });
});
