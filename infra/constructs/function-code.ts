import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, type BundlingOptions, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';

/** The service's Lambda entry points (functions/<name>.ts), each bundled on its own. */
export const SERVICE_ENTRIES = ['api', 'stream', 'timer', 'lambda-task', 'reconciler'] as const;
export type ServiceEntry = (typeof SERVICE_ENTRIES)[number];

/** Lets CommonJS dependencies inside the ESM bundle `require` Node's built-in modules. */
const esmRequireShim =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** The bundle's file name: Lambda loads `index.handler` from it. */
export const BUNDLE_FILE = 'index.mjs';

/** In a checkout: the handler's source. */
const sourceOf = (entry: ServiceEntry) =>
  fileURLToPath(new URL(`../../functions/${entry}.ts`, import.meta.url));

/**
 * In the installed package: the bundle `npm pack` built (dist/bundles/<entry>), so that a user's
 * synth needs neither esbuild nor Docker nor the network.
 */
const prebuiltOf = (entry: ServiceEntry) =>
  fileURLToPath(new URL(`../../bundles/${entry}/`, import.meta.url));

/**
 * Bundles one handler into `outdir/index.mjs` (+ its source map): an ESM bundle for Node 22 with
 * every dependency inside, the AWS SDK included (the version tested, not Lambda's), minified but
 * keeping names for stack traces. The package's build and a checkout's synth both call this.
 */
export function bundleEntry(entry: ServiceEntry, outdir: string): void {
  // esbuild is a build tool: a checkout has it, the installed package ships bundles instead. Loaded
  // synchronously, as CDK's local bundling hook runs.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  esbuild.buildSync({
    entryPoints: [sourceOf(entry)],
    outfile: join(outdir, BUNDLE_FILE),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    mainFields: ['module', 'main'],
    banner: { js: esmRequireShim },
    minify: true,
    keepNames: true,
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'warning',
  });
}

/**
 * The code of one of the service's functions, with `files` (name → content) written beside the
 * bundle: from the prebuilt bundle when the package ships one, else bundled from the source by the
 * local esbuild (never Docker). The asset's hash is that of its files, so a changed file or bundle
 * is deployed, and an unchanged one is not.
 */
export function serviceCode(
  entry: ServiceEntry,
  files: Readonly<Record<string, string>> = {},
): Code {
  for (const name of Object.keys(files))
    if (!/^[\w.-]+$/.test(name) || name.startsWith(BUNDLE_FILE))
      throw new Error(`Not a plain file name beside the bundle: ${name}`);
  const source = sourceOf(entry);
  const prebuilt = prebuiltOf(entry);
  const bundling = new ServiceBundling(entry, existsSync(source) ? 'source' : 'prebuilt', files);
  if (bundling.from === 'prebuilt' && !existsSync(prebuilt))
    throw new Error(`swf-on-dynamo: neither ${source} nor ${prebuilt} exists`);
  return Code.fromAsset(bundling.from === 'source' ? dirname(source) : prebuilt, {
    assetHashType: AssetHashType.OUTPUT,
    bundling,
  });
}

/**
 * Bundling by CDK's local hook, which honours the app's `aws:cdk:bundling-stacks`. Its fields are
 * CDK's key for reusing a bundle within a synth, hence the entry and the files among them.
 */
class ServiceBundling implements BundlingOptions {
  /** Never run: the local bundling succeeds or throws. */
  readonly image = DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22');
  readonly local: ILocalBundling = { tryBundle: (outputDir) => this.bundle(outputDir) };

  constructor(
    readonly entry: ServiceEntry,
    readonly from: 'source' | 'prebuilt',
    readonly files: Readonly<Record<string, string>>,
  ) {}

  private bundle(outputDir: string): boolean {
    if (this.from === 'source') bundleEntry(this.entry, outputDir);
    else cpSync(prebuiltOf(this.entry), outputDir, { recursive: true });
    for (const [name, content] of Object.entries(this.files))
      writeFileSync(join(outputDir, name), content);
    return true;
  }
}
