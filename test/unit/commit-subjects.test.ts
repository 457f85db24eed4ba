/**
 * Readable history: every commit from here on has a subject of at most 72 characters in the
 * conventional form (`fix(store): retry a commit whose answer was lost`); the why goes in the body. Commits before the check began are left as they are.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** The last commit before this check: history up to it is not rewritten. */
const CHECKED_AFTER = '3ed86da';
const KINDS = ['feat', 'fix', 'docs', 'test', 'refactor', 'perf', 'build', 'ci', 'chore', 'style'];
const SUBJECT = new RegExp(`^(${KINDS.join('|')})(\\([a-z0-9-]+\\))?!?: \\S`);

/** What is wrong with a subject, or undefined. */
function subjectProblem(subject: string): string | undefined {
  if (subject.length > 72) return `${subject.length} characters (at most 72)`;
  if (!SUBJECT.test(subject)) return `not "kind(scope): what it does" (kinds: ${KINDS.join(', ')})`;
  return undefined;
}

const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();

describe('commit subjects', () => {
  it('tell a subject that breaks the rule from one that keeps it', () => {
    expect(subjectProblem('fix(store): retry a commit whose answer was lost')).toBeUndefined();
    expect(subjectProblem('docs: the README becomes the front page')).toBeUndefined();
    expect(subjectProblem(`feat(sdk): ${'x'.repeat(70)}`)).toMatch(/at most 72/);
    expect(subjectProblem('Fixed the store')).toMatch(/kind\(scope\)/);
    expect(subjectProblem('fix(store):retry a commit')).toMatch(/kind\(scope\)/);
  });

  it('keep the rule in every commit since the check began', () => {
    const log = git('log', '--no-merges', '--format=%h%x09%s', `${CHECKED_AFTER}..HEAD`);
    const broken = log
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [hash = '', subject = ''] = line.split('\t');
        const problem = subjectProblem(subject);
        return problem === undefined ? undefined : `${hash} "${subject}": ${problem}`;
      })
      .filter((p) => p !== undefined);
    expect(broken).toEqual([]);
  });
});
