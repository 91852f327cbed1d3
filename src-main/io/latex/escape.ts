/** LaTeX escaping lives in pure core (core/format/latex), where the renderer can use it too. */
export { escapeLatex, unicodeToLatex } from '../../core/format/latex';
