import { describe, expect, it } from 'vitest';
import { showValue } from '../../../lib/core/validation-messages.js';

/** No lone surrogate: under the `u` flag a pair is one code point, and only a lone half is `Cs`. */
const wellFormed = (text: string) => !/\p{Cs}/u.test(text);

describe('showValue', () => {
  it('shows a short value whole and a long one cut at 200 characters', () => {
    expect(showValue('abc')).toBe("'abc'");
    expect(showValue('x'.repeat(250))).toBe(`'${'x'.repeat(200)}...'`);
  });

  it('never cuts a surrogate pair in two (the message stays well-formed UTF-16)', () => {
    // 199 ASCII characters, then emoji: the 200th unit is the first half of a pair.
    expect(wellFormed(`${'a'.repeat(199)}${'😀'.slice(0, 1)}`)).toBe(false);
    const shown = showValue(`${'a'.repeat(199)}${'😀'.repeat(10)}`);
    expect(shown).toBe(`'${'a'.repeat(199)}...'`);
    expect(wellFormed(shown)).toBe(true);
    const even = showValue('😀'.repeat(150));
    expect(even).toBe(`'${'😀'.repeat(100)}...'`);
    expect(wellFormed(even)).toBe(true);
  });
});
