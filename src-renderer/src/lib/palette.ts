/** Okabe–Ito: distinguishable under the common colour-vision deficiencies. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

export function plotColors(): { text: string; grid: string; bg: string } {
  const css = getComputedStyle(document.documentElement);
  return {
    text: css.getPropertyValue('--text').trim() || '#1d2125',
    grid: css.getPropertyValue('--border').trim() || '#d9dde1',
    bg: css.getPropertyValue('--panel').trim() || '#ffffff',
  };
}
