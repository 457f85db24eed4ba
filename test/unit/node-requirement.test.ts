/**
 * One Node.js requirement, stated the same everywhere: package.json's `engines`, the README, the
 * template app, and every package `npm ci` installs (a dependency that asks for a newer Node makes
 * `npm ci` warn EBADENGINE on a machine the README says is enough). The Node running the tests, CI's,
 * meets it too.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

type Version = readonly [number, number, number];

const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.split('.').map(Number);
  return [major, minor, patch];
};

const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Whether an engines range admits a version. The forms npm's packages use: `*`, `>=X[.Y[.Z]]`,
 * `^X[.Y[.Z]]`, a bare `X` or `X.Y`, and `||` between them; any other form is refused here.
 */
function admits(range: string, version: Version): boolean {
  return range.split('||').some((part) => {
    const alternative = part.trim().replace(/\s+/g, '');
    if (alternative === '*') return true;
    const match = /^(>=|\^)?(\d+(?:\.\d+){0,2})$/.exec(alternative);
    if (match === null) throw new Error(`a range this test cannot read: ${range}`);
    const bound = parse(match[2] ?? '');
    if (match[1] === '>=') return compare(version, bound) >= 0;
    if (match[1] === '^') return version[0] === bound[0] && compare(version, bound) >= 0;
    const parts = (match[2] ?? '').split('.').length;
    return bound.slice(0, parts).every((n, i) => version[i] === n);
  });
}

const engines = (file: string) =>
  (JSON.parse(read(file)) as { engines: { node: string } }).engines.node;

const required = engines('package.json');
const minimum = parse(required.replace(/^>=/, ''));
const stated = `Node.js ${minimum[0]}.${minimum[1]} or newer`;

/** The packages of the lockfile whose `engines.node` the minimum does not meet. */
function tooNew(lockfile: string): string[] {
  const { packages } = JSON.parse(read(lockfile)) as {
    packages: Record<string, { engines?: { node?: string } | string[] }>;
  };
  return Object.entries(packages).flatMap(([path, entry]) => {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (path === '' || range === undefined) return [];
    return admits(range, minimum) ? [] : [`${path}: node ${range}`];
  });
}

describe('the Node.js requirement', () => {
  it('is a lower bound the README and the template app state alike', () => {
    expect(required).toMatch(/^>=\d+\.\d+$/);
    expect(read('README.md')).toContain(stated);
    expect(engines('examples/app/package.json')).toBe(required);
    expect(read('examples/app/README.md')).toContain(stated);
  });

  it('is met by every package npm ci installs', () => {
    expect(tooNew('package-lock.json')).toEqual([]);
  });

  it('refuses a package that asks for a newer Node, and a range it cannot read', () => {
    const v20_19: Version = [20, 19, 0];
    expect(admits('>=22.22.2', v20_19)).toBe(false);
    expect(admits('^20.20.0 || >=22', v20_19)).toBe(false);
    expect(admits('18 || 20 || >=22', v20_19)).toBe(true);
    expect(admits('^18.0.0 || >=20.0.0', v20_19)).toBe(true);
    expect(admits('>= 18.0.0', v20_19)).toBe(true);
    expect(admits('*', v20_19)).toBe(true);
    expect(() => admits('~20.1', v20_19)).toThrow(/cannot read/);
  });

  it('is met by the Node that runs the tests', () => {
    expect(admits(required, parse(process.versions.node))).toBe(true);
  });
});
