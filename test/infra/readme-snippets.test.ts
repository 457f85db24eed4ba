/**
 * The TypeScript samples of the README and of the guides in docs/ compile against the code they show:
 * each ```ts block is type-checked with the project's compiler options, as a module at the
 * repository's root (so `./lib/sdk/index.js` resolves as it does for a reader in a clone; the
 * package's `swf-on-dynamo/sdk`, `/cdk` and `/testing` are lib/sdk, infra and lib/testing). A sample that leaves a name to its surroundings (`app`,
 * `greeting` of an earlier sample, `parcels` of the reader's code) gets a declaration of it from its
 * document's context; any other name it does not define fails the test.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

type Context = Readonly<Record<string, string>>;

/** Names the samples of the README and the guides take from their surroundings, declared for the check. */
const CONTEXT: Context = {
  Activity: "import type { Activity } from './lib/sdk/index.js';",
  greeting: "declare const greeting: import('./lib/sdk/index.js').Decider;",
  parcels: 'declare function parcels(order: string | undefined): string[];',
  carrierUrl: 'declare const carrierUrl: string;',
  app: "declare const app: import('aws-cdk-lib').App;",
  stack: "declare const stack: import('aws-cdk-lib').Stack;",
  starterRole: "declare const starterRole: import('aws-cdk-lib/aws-iam').IRole;",
  greetFn: "declare const greetFn: import('aws-cdk-lib/aws-lambda').IFunction;",
  SwfStack: "import { SwfStack } from './infra/swf-stack.js';",
  NodejsFunction: "import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';",
  Duration: "import { Duration } from 'aws-cdk-lib';",
};

/** The ```ts blocks of a Markdown text, each with the line it starts on. */
function tsBlocks(markdown: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  for (const match of markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    const line = markdown.slice(0, match.index).split('\n').length + 1;
    blocks.push({ line, code: match[1] ?? '' });
  }
  return blocks;
}

/** Names the testing guide's samples take from the reader's code and test framework. */
const TESTING_CONTEXT: Context = {
  expect: "import { expect } from 'vitest';",
  beforeAll: "import { beforeAll } from 'vitest';",
  afterAll: "import { afterAll } from 'vitest';",
  it: "import { it } from 'vitest';",
  inject: "import { inject } from 'vitest';",
  decide: "import { decide } from './lib/sdk/index.js';",
  SignalWorkflowExecutionCommand:
    "import { SignalWorkflowExecutionCommand } from '@aws-sdk/client-swf';",
  TestEnvironment: "import { TestEnvironment } from './lib/testing/index.js';",
  MockActivityContext: "import { MockActivityContext } from './lib/testing/index.js';",
  historyOf: "import { historyOf } from './lib/testing/index.js';",
  events: "import { events } from './lib/testing/index.js';",
  goldenHistory: "import { goldenHistory } from './lib/testing/index.js';",
  loadHistory: "import { loadHistory } from './lib/testing/index.js';",
  replayHistory: "import { replayHistory } from './lib/testing/index.js';",
  monthLongOrder:
    "declare const monthLongOrder: import('./lib/sdk/index.js').WorkflowDefinition<string, string>;",
  ORDER: 'declare const ORDER: { name: string; version: string };',
  order: 'declare const order: string;',
  env: "declare const env: import('./lib/testing/index.js').TestEnvironment;",
  APPROVAL: 'declare const APPROVAL: { name: string; version: string };',
  chargeCreditCard: "declare const chargeCreditCard: import('./lib/sdk/index.js').Activity;",
  chargeCard: "declare const chargeCard: import('./lib/sdk/index.js').Activity;",
  shipOrder: "declare const shipOrder: import('./lib/sdk/index.js').Activity;",
  orderDecider:
    "declare function orderDecider(activityTaskList: string): (state: import('./lib/sdk/index.js').WorkflowState) => import('./lib/sdk/index.js').Decision[];",
};

/** The declarations of the context's names a sample uses without defining or importing them. */
function preludeFor(code: string, context: Context): string {
  const imported = [...code.matchAll(/^import\s[\s\S]*?from\s/gm)].map((m) => m[0]).join(' ');
  return Object.entries(context)
    .filter(([name]) => {
      const used = new RegExp(`\\b${name}\\b`).test(code);
      const defined = new RegExp(`\\b(const|let|function|class)\\s+${name}\\b`).test(code);
      return used && !defined && !new RegExp(`\\b${name}\\b`).test(imported);
    })
    .map(([, declaration]) => declaration)
    .join('\n');
}

/** Type-checks each sample as its own module; returns the diagnostics, located in `document`. */
function check(
  blocks: readonly { line: number; code: string; document?: string }[],
  document = 'README.md',
  context: Context = CONTEXT,
): string[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const files = new Map<
    string,
    { text: string; offset: number; readmeLine: number; document: string }
  >();
  blocks.forEach(({ line, code, document: from = document }, i) => {
    // The package's entry points, as the reader imports them, are these files of the repository.
    const source = code
      .replaceAll("from 'swf-on-dynamo/testing'", "from './lib/testing/index.js'")
      .replaceAll("from 'swf-on-dynamo/sdk'", "from './lib/sdk/index.js'")
      .replaceAll("from 'swf-on-dynamo/cdk'", "from './infra/index.js'");
    const prelude = preludeFor(source, context);
    const offset = prelude === '' ? 0 : prelude.split('\n').length;
    // `export {}`: a sample without imports is a module too, so samples share no global names.
    const text = `${prelude}${prelude === '' ? '' : '\n'}${source}\nexport {};\n`;
    files.set(join(root, `doc-sample-${i}.ts`), { text, offset, readmeLine: line, document: from });
  });
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name)?.text ?? readFile(name);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.getSourceFile = (name, version, ...rest) => {
    const file = files.get(name);
    return file === undefined
      ? getSourceFile(name, version, ...rest)
      : ts.createSourceFile(name, file.text, version, true);
  };
  const program = ts.createProgram([...files.keys()], { ...options, noEmit: true }, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const file = d.file === undefined ? undefined : files.get(d.file.fileName);
    if (d.file === undefined || file === undefined || d.start === undefined) return message;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${file.document}:${file.readmeLine + line - file.offset}: ${message}`;
  });
}

/** The README and the guides whose samples use the SDK, the AWS SDK and the CDK: how many each has. */
const DOCUMENTS: Readonly<Record<string, number>> = {
  'README.md': 1,
  'docs/running-locally.md': 1,
  'docs/sdk.md': 4,
  'docs/deploying.md': 1,
  'docs/operations.md': 1,
};

describe('the TypeScript samples of the README and the guides', () => {
  const blocks = Object.keys(DOCUMENTS).flatMap((document) =>
    tsBlocks(readFileSync(join(root, document), 'utf8')).map((block) => ({ ...block, document })),
  );
  // One program for all (the compiler's start is most of the time): the samples and a sample that
  // misuses the SDK, which must fail, or the check proves nothing.
  const wrong = {
    line: 0,
    code: "import { createSwfClient } from 'swf-on-dynamo/sdk';\ncreateSwfClient({ port: 1 });\n",
    document: 'wrong.md',
  };
  let diagnostics: string[] = [];
  beforeAll(() => {
    diagnostics = check([...blocks, wrong]);
  }, 120_000);

  it('finds the samples', () => {
    const found = Object.fromEntries(
      Object.keys(DOCUMENTS).map((document) => [
        document,
        blocks.filter((block) => block.document === document).length,
      ]),
    );
    expect(found).toEqual(DOCUMENTS);
  });

  it('type-check against the SDK, the AWS SDK and the CDK construct, as the package exports them', () => {
    expect(diagnostics.filter((d) => !d.startsWith('wrong.md:1: '))).toEqual([]);
  });

  it('fails a sample that misuses the SDK', () => {
    expect(diagnostics).toEqual([expect.stringMatching(/^wrong\.md:1: .*'port'/)]);
  });
});

describe("the testing guide's TypeScript samples", () => {
  const blocks = tsBlocks(readFileSync(join(root, 'docs/testing.md'), 'utf8'));

  it('type-check against the testing kit and the SDK', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    expect(check(blocks, 'docs/testing.md', TESTING_CONTEXT)).toEqual([]);
  }, 120_000);
});
