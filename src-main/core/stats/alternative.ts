/**
 * The alternative hypothesis of a test, named as scipy names it. Throughout core/stats the
 * effect is b − a (system minus baseline), so `greater` means "b is better than a" when higher
 * scores are better.
 */
export type Alternative = 'two-sided' | 'greater' | 'less';

export const ALTERNATIVES: readonly Alternative[] = ['two-sided', 'greater', 'less'];
