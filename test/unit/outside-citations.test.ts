/**
 * Nothing in the repository points a reader at a document they cannot open: the project was started
 * from a spec, a design note, a style note and seed documents that live outside the repository, and
 * from numbered issues in a tracker of its own. Code, tests and docs say what they need in their own
 * words, or link to the section of docs/ that does. Every tracked text file is read (this one apart:
 * it has to spell what it looks for).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const self = relative(root, fileURLToPath(import.meta.url));

/** What a pointer outside the repository looks like, each with what it points at. */
const OUTSIDE: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'the SWF API spec', pattern: /\bswf-api\.md\b/ },
  { what: 'the design note', pattern: /\bDESIGN\.md\b/ },
  { what: 'the style note', pattern: /\bSTYLE\.md\b/ },
  {
    what: 'a seed document',
    pattern: /\bseeds?\s+\d{3}\b|\bseeds\/|\bseed (?:document|file)s?\b/i,
  },
  { what: "a seed document's content", pattern: /\bthe seed's\b/i },
  { what: 'an issue of the tracker', pattern: /\bissues?\s+#?\d+\b/i },
  { what: 'a section of an outside spec', pattern: /§\s*\d/ },
];

/** Files that may name them: binary files and the lockfile hold no prose. */
const EXEMPT = new Set([self, 'package-lock.json']);

/** `file:line: what it points at: the line`, for each pointer outside the repository in a text. */
function outsideCitations(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const { what, pattern } of OUTSIDE)
      if (pattern.test(line)) found.push(`${file}:${index + 1}: ${what}: ${line.trim()}`);
  });
  return found;
}

function trackedTextFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' });
  return listed.split('\0').filter((file) => file !== '' && !EXEMPT.has(file));
}

describe('pointers at documents outside the repository', () => {
  it('are recognised in each form they have taken', () => {
    const samples = [
      'Long polls (swf-api.md)',
      'the outbox (DESIGN.md)',
      'as STYLE.md asks',
      'the order workflow (seed 001)',
      'cancelling an order (seeds 000/001)',
      "following the seed's cancellation pattern",
      'the design target of issue 5',
      'see Issue #12',
      'the open count (§11)',
    ];
    expect(samples.map((line) => outsideCitations('x', line).length)).toEqual(samples.map(() => 1));
  });

  it('leave alone what only looks like one', () => {
    const samples = [
      'a random seed of 42 for fast-check',
      'tags like w#1 and tl#1',
      'background: #111;',
      'functions/shared/config.ts and infra/constructs/swf-api.ts',
      'an issue with the socket',
    ];
    expect(samples.flatMap((line) => outsideCitations('x', line))).toEqual([]);
  });

  it('appear in no tracked file: code, tests and docs say it themselves or link to docs/', () => {
    const files = trackedTextFiles();
    expect(files).toContain('README.md');
    const found = files.flatMap((file) => {
      const bytes = readFileSync(join(root, file));
      if (bytes.includes(0)) return []; // a binary file (an image) holds no prose
      return outsideCitations(file, bytes.toString('utf8'));
    });
    expect(found).toEqual([]);
  });
});
