/**
 * Win/tie/loss counts of b against a over paired queries (ranx `win_tie_loss`, PyTerrier's
 * `+`/`-` columns). b wins a query when b_i − a_i > tolerance, loses when b_i − a_i < −tolerance,
 * and ties otherwise. The default tolerance 0 counts only exactly equal scores as ties, as ranx and
 * PyTerrier do; pass e.g. 1e-9 to absorb floating-point noise. Higher scores are taken as better;
 * for lower-is-better measures swap a and b.
 */
import { pairedDifferences } from './descriptive';

export interface WinTieLoss {
  wins: number;
  ties: number;
  losses: number;
}

export function winTieLoss(a: readonly number[], b: readonly number[], tolerance = 0): WinTieLoss {
  if (!(tolerance >= 0) || !Number.isFinite(tolerance)) throw new RangeError(`tie tolerance must be a finite number ≥ 0, got ${tolerance}`);
  const out = { wins: 0, ties: 0, losses: 0 };
  for (const d of pairedDifferences(a, b)) {
    if (d > tolerance) out.wins++;
    else if (d < -tolerance) out.losses++;
    else out.ties++;
  }
  return out;
}
