/**
 * package.json declares what the package's entry points need: every package the code behind an
 * `exports` entry or the `bin` imports (types included: the shipped `.d.ts` files import them too) is
 * a dependency, or a peer dependency of the CDK entry alone; tools (tsx, esbuild, TypeScript) are
 * devDependencies, loaded by a checkout only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  exports: Record<string, string | { types: string; default: string }>;
  bin: Record<string, string>;
  files: string[];
  scripts: Record<string, string>;
};

/** Build tools a file loads on demand in a checkout only; the package ships what they build. */
const checkoutOnly: Readonly<Record<string, readonly string[]>> = {
  'lib/console/assets.ts': ['esbuild'],
  'infra/constructs/function-code.ts': ['esbuild'],
};

/** The source of a compiled file the package ships: dist/lib/x.js is lib/x.ts. */
const sourceOf = (target: string) => target.replace(/^\.?\/?dist\//, '').replace(/\.js$/, '.ts');

const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** The packages the files reachable from `entry` import, each with a file that imports it. */
function packagesReachedFrom(entry: string): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(root, file), 'utf8');
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (fileName.startsWith('.')) {
        const target = relative(
          root,
          resolve(root, dirname(file), fileName.replace(/\.js$/, '.ts')),
        );
        if (existsSync(join(root, target))) visit(target);
        else throw new Error(`${file} imports ${fileName}, which is not there`);
      } else if (!fileName.startsWith('node:') && !checkoutOnly[file]?.includes(fileName)) {
        packages.set(packageOf(fileName), file);
      }
    }
  };
  visit(entry);
  return packages;
}

const entries: Record<string, string> = Object.fromEntries([
  ...Object.entries(manifest.exports)
    .filter(([name]) => name !== './package.json')
    .map(([name, target]) => [
      name,
      sourceOf(typeof target === 'string' ? target : target.default),
    ]),
  ...Object.entries(manifest.bin).map(([name, target]) => [`bin ${name}`, sourceOf(target)]),
]);

describe('the package manifest', () => {
  it('names entry points whose sources are there', () => {
    expect(entries).toMatchObject({
      './sdk': 'lib/sdk/index.ts',
      './cdk': 'infra/index.ts',
      './testing': 'lib/testing/index.ts',
      'bin swf-on-dynamo': 'lib/local/bin.ts',
    });
    for (const source of Object.values(entries)) expect(existsSync(join(root, source))).toBe(true);
  });

  it('declares every package an entry point needs', () => {
    const declared = new Set([
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.peerDependencies),
    ]);
    const missing = Object.entries(entries).flatMap(([entry, source]) =>
      [...packagesReachedFrom(source)]
        .filter(([name]) => !declared.has(name))
        .map(([name, file]) => `${entry}: ${file} imports ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('needs the CDK for the CDK entry only, as optional peers', () => {
    const cdk = ['aws-cdk-lib', 'constructs'];
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(cdk);
    for (const name of cdk) expect(manifest.peerDependenciesMeta[name]?.optional).toBe(true);
    for (const [entry, source] of Object.entries(entries)) {
      const reached = [...packagesReachedFrom(source).keys()].filter((name) => cdk.includes(name));
      expect({ entry, reached }).toEqual({ entry, reached: entry === './cdk' ? cdk : [] });
    }
  });

  it('keeps build and test tools out of the dependencies', () => {
    for (const tool of ['tsx', 'esbuild', 'typescript', 'aws-cdk', 'vitest', '@biomejs/biome'])
      expect(Object.keys(manifest.dependencies)).not.toContain(tool);
    expect(manifest.scripts.prepack).toBe('npm run build');
    expect(manifest.files).toEqual(['dist']);
  });

  it('finds an import that is not declared', () => {
    // The scan reads imports: a package entry's own imports are found.
    expect([...packagesReachedFrom('lib/sdk/index.ts').keys()]).toContain('@aws-sdk/client-swf');
    expect([...packagesReachedFrom('infra/index.ts').keys()]).toContain('aws-cdk-lib');
  });
});
