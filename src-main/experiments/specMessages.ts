/**
 * Spec validation messages written for people (issue 17 item 2): the schema library's default texts
 * ("Invalid input: expected string, received undefined", "Too small: expected number to be >=0")
 * become sentences such as "required (text)" or "must be at least 0"; messages the schemas set
 * themselves (refinements, regex hints) are kept as written.
 */
import type { z } from 'zod';
import { formatIssuePath } from '../api/contract/define';

type Issue = z.core.$ZodIssue;

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (object)',
  bigint: 'a whole number',
};

const DEFAULT_TEXT = /^(Invalid input|Invalid option|Too small|Too big|Unrecognized key|Invalid string|Invalid number|Invalid)\b/;

const quote = (v: unknown) => (typeof v === 'string' ? `'${v}'` : String(v));

function bound(issue: { origin?: string; inclusive?: boolean }, value: number | bigint, atLeast: boolean): string {
  const n = Number(value);
  switch (issue.origin) {
    case 'string':
      if (atLeast && n === 1) return 'must not be empty';
      return `must be ${atLeast ? 'at least' : 'at most'} ${n} character${n === 1 ? '' : 's'} long`;
    case 'array':
    case 'set':
      if (atLeast && n === 1) return 'needs at least one entry';
      return `needs ${atLeast ? 'at least' : 'at most'} ${n} entr${n === 1 ? 'y' : 'ies'}`;
    default:
      if (issue.inclusive === false) return `must be ${atLeast ? 'greater' : 'less'} than ${n}`;
      return `must be ${atLeast ? 'at least' : 'at most'} ${n}`;
  }
}

/** One issue as a sentence for the person who wrote the spec. */
export function humanMessage(issue: Issue): string {
  if (!DEFAULT_TEXT.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type': {
      const want = TYPE_WORDS[issue.expected] ?? issue.expected;
      if (/received undefined$/.test(issue.message)) return `required (${want})`;
      const got = /received (\w+)$/.exec(issue.message)?.[1];
      if (issue.expected === 'int') return 'must be a whole number';
      return `must be ${want}${got ? `, not ${TYPE_WORDS[got] ?? got}` : ''}`;
    }
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${quote(issue.values[0])}` : `must be one of ${issue.values.map(quote).join(', ')}`;
    case 'too_small':
      return bound(issue, issue.minimum, true);
    case 'too_big':
      return bound(issue, issue.maximum, false);
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map(quote).join(', ')} (check the spelling; fields are case-sensitive)`;
    case 'invalid_union': {
      // Say what the closest alternative (the one with the fewest problems) wants.
      const branches = (issue.errors ?? []).filter((b) => b.length > 0).sort((a, b) => a.length - b.length);
      const closest = branches[0]?.[0];
      if (!closest) return 'is not in any of the accepted forms';
      const where = formatIssuePath(closest.path);
      return `is not in any of the accepted forms; closest: ${where ? `${where} ` : ''}${humanMessage(closest)}`;
    }
    case 'invalid_format':
      return `has the wrong format${issue.format && issue.format !== 'regex' ? ` (expected ${issue.format})` : ''}`;
    default:
      return issue.message;
  }
}

/** The path to name for an issue: an unknown single field is named itself. */
export function humanPath(issue: Issue): (string | number)[] {
  const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  if (issue.code === 'unrecognized_keys' && issue.keys.length === 1) return [...path, issue.keys[0] as string];
  return path;
}
