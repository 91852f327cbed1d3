import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src-main/io/jsonText';

describe('parseJsonText', () => {
  it('refuses a number beyond a double, naming the file and line (JSON.parse would give Infinity)', () => {
    expect(() => parseJsonText('{\n  "a": 1,\n  "b": [2, -1e400]\n}', 'x.json')).toThrow("x.json:3: the number -1e400 is out of range (larger than a double holds)");
    expect(() => parseJsonText('[1e308, 1.7976931348623157e308]', 'y.json')).not.toThrow();
    // Digits inside strings are text, not numbers.
    expect(parseJsonText('{"id": "1e400"}', 'z.json')).toEqual({ id: '1e400' });
  });
});
