/**
 * What the README and the guides in docs/ show stays true where a test can tell without running it:
 * every link inside the repository reaches a tracked file (and a heading, when it names one); every
 * `npm run` script exists; every option shown to `npm start`, `npx swf-on-dynamo` and its `console`
 * command is one that command reads; every example named is one `npm run example` runs; the tarball
 * named is the one `npm pack` builds. The samples themselves are type-checked and run elsewhere
 * (test/infra/readme-snippets.test.ts, test/contract/readme-greeting.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '');
const documents = tracked.filter(
  (file) =>
    file === 'README.md' || /^docs\/[^/]+\.md$/.test(file) || file === 'examples/app/README.md',
);

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = read(file).replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...text.matchAll(/^#+\s+(.+)$/gm)].map((m) => anchor(m[1] ?? '')));
}

/** What is wrong with each relative link of a document: a missing file or heading. */
function brokenLinks(document: string): string[] {
  const text = read(document).replace(/^```[\s\S]*?^```$/gm, '');
  const broken: string[] = [];
  for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
    const [path = '', hash] = target.split('#');
    const file = path === '' ? document : normalize(join(dirname(document), path));
    const exists = tracked.some((t) => t === file || t.startsWith(`${file.replace(/\/$/, '')}/`));
    if (!exists) broken.push(`${document}: ${target}: no such file`);
    else if (hash !== undefined && !anchorsOf(file).has(hash))
      broken.push(`${document}: ${target}: no such heading`);
  }
  return broken;
}

/** Each line of a document's sh blocks. */
function shellLines(document: string): string[] {
  return [...read(document).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((m) =>
    (m[1] ?? '').split('\n'),
  );
}

/** Inline code spans and sh lines: everything a reader may type. */
function commands(document: string): string[] {
  const inline = [...read(document).matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '');
  return [...shellLines(document), ...inline];
}

const scripts = (file: string) =>
  Object.keys((JSON.parse(read(file)) as { scripts: Record<string, string> }).scripts);

/** The options a command reads: the keys of its parseArgs options, `{ port: { type: 'string' } }`. */
const optionsIn = (file: string) =>
  new Set(
    [...read(file).matchAll(/^\s*'?([a-z][a-z-]*)'?: \{ type: '(?:string|boolean)'/gm)].map(
      (m) => `--${m[1]}`,
    ),
  );

describe('the README and the guides', () => {
  it('are found', () => {
    expect(documents).toEqual(
      expect.arrayContaining(['README.md', 'docs/sdk.md', 'docs/deploying.md']),
    );
  });

  it('link only to files and headings that exist', () => {
    expect(documents.flatMap(brokenLinks)).toEqual([]);
  });

  it('run only npm scripts that exist', () => {
    // The template app's own scripts, shown where the README and its own README use the app.
    const known = new Set([...scripts('package.json'), ...scripts('examples/app/package.json')]);
    const used = documents.flatMap((document) =>
      commands(document).flatMap((line) =>
        [...line.matchAll(/\bnpm run ([\w:-]+)/g)].map((m) => `${document}: ${m[1]}`),
      ),
    );
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((use) => !known.has(use.split(': ')[1] ?? ''))).toEqual([]);
  });

  it('pass the local service and the console only options they read', () => {
    const service = optionsIn('lib/local/start.ts');
    const console = optionsIn('lib/console/cli.ts');
    const wrong: string[] = [];
    for (const document of documents)
      for (const line of commands(document)) {
        const run = /\b(?:npm start --|npx swf-on-dynamo|npm run console --)(.*)$/.exec(line);
        if (run === undefined || run === null) continue;
        const isConsole = /npm run console|swf-on-dynamo console/.test(line);
        for (const option of run[1]?.match(/--[a-z][a-z-]*/g) ?? [])
          if (!(isConsole ? console : service).has(option))
            wrong.push(`${document}: ${option} in ${line.trim()}`);
      }
    expect(wrong).toEqual([]);
    expect([...service].sort()).toEqual(
      ['--access-policies', '--audit-log', '--data', '--help', '--port', '--table'].sort(),
    );
    expect(console.has('--endpoint')).toBe(true);
  });

  it('name only examples that npm run example runs', () => {
    const runner = read('examples/run.ts');
    const named = documents.flatMap((document) =>
      commands(document).flatMap((line) =>
        [...line.matchAll(/npm run example -- ([\w-]+)/g)].map((m) => m[1] ?? ''),
      ),
    );
    expect(named).toContain('order');
    expect(
      named.filter((name) => !runner.includes(`'${name}'`) && !runner.includes(` ${name}:`)),
    ).toEqual([]);
  });

  it('name the tarball npm pack builds', () => {
    const { version } = JSON.parse(read('package.json')) as { version: string };
    const named = documents.flatMap((document) =>
      [...read(document).matchAll(/swf-on-dynamo-(\d[\w.-]*?)\.tgz/g)].map((m) => m[1]),
    );
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((v) => v !== version)).toEqual([]);
  });
});
