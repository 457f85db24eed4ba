/** What the service records of a too-long answer: its first units, never half of an emoji. */
import { describe, expect, it } from 'vitest';
import { cutText } from '../../../lib/core/limits.js';

describe('cutText', () => {
  it('keeps text within the limit whole, and cuts longer text to it', () => {
    expect(cutText('abc', 3)).toBe('abc');
    expect(cutText('abcd', 3)).toBe('abc');
  });

  it('cuts one unit shorter where the limit falls inside a surrogate pair', () => {
    const text = `ab\u{1F600}c`;
    expect(cutText(text, 3)).toBe('ab');
    expect(cutText(text, 4)).toBe('ab\u{1F600}');
  });
});
