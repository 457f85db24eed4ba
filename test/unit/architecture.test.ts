/**
 * The direction of imports, checked on every import of lib/ and functions/ (static, dynamic, `import
 * type` and re-exports alike). The service is layered from the pure core outwards:
 *
 *   core ← ports ← operations, adapters ← composition ← http, local ← functions
 *
 * Each area may import only the areas its row names. lib/aws-json (the lean AWS JSON client) is a
 * library of its own that imports nothing else of lib: the adapters, the local server and the SDK use
 * it, and the SDK ships with it. lib/console (the console's bundle, its route and the signing proxy)
 * is a client of SWF as the SDK is: it imports only lib/aws-json, and the local server serves it.
 * lib/testing (the testing kit) runs the local service in-process and drives it with the SDK's
 * workers, so it sits outside both. A new folder under lib/ must be given its row here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface Rule {
  /** The areas (lib/<folder>, or a top-level folder) this area's files may import. */
  readonly areas: readonly string[];
  /** Packages: none, Node's built-ins only, or those package.json lists as dependencies. */
  readonly packages: 'none' | 'node' | 'dependencies';
}

/** What the edges (the local server, the Lambda functions) may import: everything inward. */
const edgeImports = [
  'lib/core',
  'lib/ports',
  'lib/operations',
  'lib/adapters',
  'lib/aws-json',
  'lib/composition',
  'lib/http',
];

/** What each area may import. Every area may import its own files. */
const allowed: Readonly<Record<string, Rule>> = {
  'lib/core': { areas: [], packages: 'none' },
  'lib/ports': { areas: ['lib/core'], packages: 'none' },
  'lib/operations': { areas: ['lib/core', 'lib/ports'], packages: 'node' },
  'lib/adapters': { areas: ['lib/core', 'lib/ports', 'lib/aws-json'], packages: 'dependencies' },
  'lib/aws-json': { areas: [], packages: 'dependencies' },
  'lib/sdk': { areas: ['lib/aws-json'], packages: 'dependencies' },
  'lib/composition': {
    areas: ['lib/core', 'lib/ports', 'lib/operations', 'lib/adapters', 'lib/aws-json'],
    packages: 'dependencies',
  },
  'lib/http': { areas: ['lib/core', 'lib/ports', 'lib/operations'], packages: 'dependencies' },
  'lib/console': { areas: ['lib/aws-json'], packages: 'dependencies' },
  'lib/local': { areas: [...edgeImports, 'lib/console'], packages: 'dependencies' },
  // The operator's CLI: commands over the stores and the outbox, reached as the service reaches them
  // (not over the wire).
  'lib/admin': {
    areas: edgeImports.filter((area) => area !== 'lib/http'),
    packages: 'dependencies',
  },
  'lib/testing': {
    areas: ['lib/core', 'lib/ports', 'lib/http', 'lib/local', 'lib/sdk'],
    packages: 'dependencies',
  },
  functions: { areas: edgeImports, packages: 'dependencies' },
};

interface Import {
  /** The importing file, relative to the repository. */
  readonly file: string;
  /** What it imports, as written. */
  readonly specifier: string;
}

/** The area of a file of the repository: lib/<folder> under lib, else its top-level folder. */
function areaOf(file: string): string {
  const [top, second] = file.split('/');
  return top === 'lib' && second !== undefined && file.split('/').length > 2
    ? `lib/${second}`
    : (top ?? file);
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/**
 * What production code may import: the dependencies, and types a package of its own does not carry
 * (`aws-lambda` from `@types/aws-lambda`: there is no such package to load, so only types can come of it).
 */
const dependencies = new Set([
  ...Object.keys(manifest.dependencies),
  ...Object.keys(manifest.devDependencies)
    .filter((name) => name.startsWith('@types/') && name !== '@types/node')
    .map((name) => name.slice('@types/'.length)),
]);

/**
 * Build tools a file loads on demand in a checkout only: the package ships what they build instead
 * (the console's bundle), and never takes that path.
 */
const checkoutOnly: Readonly<Record<string, readonly string[]>> = {
  'lib/console/assets.ts': ['esbuild'],
};

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Why an import breaks the table, or undefined when it keeps to it. */
function violation({ file, specifier }: Import): string | undefined {
  const area = areaOf(file);
  const rule = allowed[area];
  if (rule === undefined) return `${file}: its area ${area} has no row in the table`;
  if (specifier.startsWith('.')) {
    const target = relative(root, resolve(root, dirname(file), specifier));
    const targetArea = areaOf(target);
    if (targetArea === area || rule.areas.includes(targetArea)) return undefined;
    return `${file} imports ${target}: ${area} may not import ${targetArea}`;
  }
  if (specifier.startsWith('node:')) {
    return rule.packages === 'none'
      ? `${file} imports ${specifier}: ${area} imports no packages, Node's included`
      : undefined;
  }
  if (rule.packages === 'dependencies' && dependencies.has(packageOf(specifier))) return undefined;
  if (checkoutOnly[file]?.includes(specifier)) return undefined;
  return rule.packages === 'dependencies'
    ? `${file} imports ${specifier}, which package.json does not list as a dependency`
    : `${file} imports ${specifier}: ${area} imports ${rule.packages === 'none' ? 'no packages' : "only Node's built-ins"}`;
}

/** Every import of the TypeScript files under `folder`. */
function importsUnder(folder: string): Import[] {
  const files = readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
  return files.flatMap((file) =>
    ts
      .preProcessFile(readFileSync(join(root, file), 'utf8'), true, true)
      .importedFiles.map(({ fileName }) => ({ file, specifier: fileName })),
  );
}

describe('the direction of imports', () => {
  const imports = [...importsUnder('lib'), ...importsUnder('functions')];

  it('finds the imports it checks', () => {
    // A scan that found nothing would pass whatever the code does.
    expect(imports.length).toBeGreaterThan(400);
    expect(imports).toContainEqual({
      file: 'lib/http/dispatch.ts',
      specifier: '../operations/context.js',
    });
  });

  it('keeps every import of lib/ and functions/ to the table', () => {
    const violations = new Set(imports.map(violation).filter((v) => v !== undefined));
    expect([...violations]).toEqual([]);
  });

  it('refuses an import against the table', () => {
    expect(violation({ file: 'lib/core/x.ts', specifier: '../adapters/dynamodb/keys.js' })).toBe(
      'lib/core/x.ts imports lib/adapters/dynamodb/keys.js: lib/core may not import lib/adapters',
    );
    expect(violation({ file: 'lib/operations/x.ts', specifier: '../http/swf-model.js' })).toMatch(
      /may not import lib\/http/,
    );
    expect(violation({ file: 'lib/local/x.ts', specifier: '../../functions/y.js' })).toMatch(
      /may not import functions/,
    );
    expect(violation({ file: 'lib/sdk/x.ts', specifier: '../operations/y.js' })).toMatch(
      /may not import lib\/operations/,
    );
    expect(violation({ file: 'lib/core/x.ts', specifier: 'node:crypto' })).toMatch(/no packages/);
    expect(
      violation({ file: 'lib/operations/x.ts', specifier: '@aws-sdk/client-dynamodb' }),
    ).toMatch(/only Node's built-ins/);
    expect(violation({ file: 'lib/sdk/x.ts', specifier: 'vitest' })).toMatch(/not list/);
    expect(violation({ file: 'lib/elsewhere/x.ts', specifier: './y.js' })).toMatch(/no row/);
    expect(violation({ file: 'lib/console/x.ts', specifier: '../local/server.js' })).toMatch(
      /may not import lib\/local/,
    );
  });

  it('lets an area import what its row names', () => {
    expect(violation({ file: 'lib/sdk/client.ts', specifier: '@aws-sdk/client-swf' })).toBe(
      undefined,
    );
    expect(violation({ file: 'lib/sdk/a/b.ts', specifier: '../../aws-json/sleep.js' })).toBe(
      undefined,
    );
    expect(violation({ file: 'functions/api.ts', specifier: '../lib/http/dispatch.js' })).toBe(
      undefined,
    );
  });
});
