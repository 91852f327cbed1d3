/**
 * LLM-as-judge pairwise comparison of a condition's answer with the baseline's (RichRAG Sec. 4.1 /
 * Fig. 3, after Wang et al. 2023c), position-swapped to cancel order bias: the judge sees the pair
 * twice, once with the system's answer as "A" and once with the baseline's as "A", and answers A, B or
 * tie (constrained like the ranker's steps, constraints.ts).
 *
 * Tie rule: the system wins a query when it wins in both orders, or wins in one and ties in the other;
 * it loses in the mirror cases; every other combination — two ties, or contradicting verdicts (each
 * order prefers whatever is shown first, or second) — is a tie. Identical answers are a tie without
 * any call.
 */
import type { GenerateRequest } from '../../engine/types';
import { choiceConstraint, parseChoice, type ConstraintMode } from './constraints';
import type { JudgmentPayload, Verdict } from './items';
import { renderTemplate } from './templates';

export const JUDGE_OPTIONS = ['A', 'B', 'tie'] as const;

export const TIE_RULE =
  'Each pair is judged twice with the positions swapped. The system wins when it wins both orders, or one order with a tie in the other; it loses in the mirror cases; two ties or contradicting verdicts are a tie. Identical answers are a tie without a call.';

export function judgePrompt(template: string, query: string, a: string, b: string): string {
  return renderTemplate(template, { query, a, b }, 'judge.template');
}

export function judgeRequest(prompt: string, mode: ConstraintMode, chat: boolean): GenerateRequest {
  return {
    ...(chat ? { messages: [{ role: 'user' as const, content: prompt }] } : { prompt }),
    ...choiceConstraint(JUDGE_OPTIONS, mode),
    sampling: { temperature: 0 },
  };
}

/** What one order's raw answer means for the system; `systemFirst` = the system's answer was "A". */
export function verdictOf(raw: string, systemFirst: boolean): Verdict {
  const choice = parseChoice(raw, JUDGE_OPTIONS);
  if (choice === 'A') return systemFirst ? 'system' : 'baseline';
  if (choice === 'B') return systemFirst ? 'baseline' : 'system';
  return 'tie'; // 'tie', or no readable verdict
}

export function combineVerdicts(verdicts: readonly Verdict[]): JudgmentPayload['outcome'] {
  const wins = verdicts.filter((v) => v === 'system').length;
  const losses = verdicts.filter((v) => v === 'baseline').length;
  if (wins > 0 && losses === 0) return 'win';
  if (losses > 0 && wins === 0) return 'loss';
  return 'tie';
}
