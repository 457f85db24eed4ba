import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Lets CommonJS dependencies inside the ESM bundle `require` Node's built-in modules. */
const esmRequireShim =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

export interface ServiceFunctionProps {
  /** The handler's source file, absolute (e.g. functions/api.ts); it exports `handler`. */
  readonly entry: string;
  readonly description?: string;
  /** @default 30 seconds */
  readonly timeout?: Duration;
  /** @default 1024 */
  readonly memorySize?: number;
  readonly environment?: Readonly<Record<string, string>>;
  /** @default one month */
  readonly logRetention?: RetentionDays;
  /**
   * Files written beside the bundle (name → content), read by the function at cold start: what is
   * too large for environment variables (4 KB in all), such as access policies.
   */
  readonly files?: Readonly<Record<string, string>>;
}

/**
 * A NodejsFunction with the service's defaults: Node 22 on ARM64, an ESM bundle built by the local esbuild
 * (never Docker) with the AWS SDK inside and source maps on, and its own log group with a retention.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    // The log group is created before the function (it is one of its props), hence beside it.
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // A role of its own instead of AWSLambdaBasicExecutionRole, which may write to every log group
    // of the account (a function could forge another's audit lines): this one writes to its own.
    const role = new Role(scope, `${id}ServiceRole`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      ...(props.description === undefined ? {} : { description: props.description }),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      timeout: props.timeout ?? Duration.seconds(30),
      memorySize: props.memorySize ?? 1024,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      logGroup,
      role,
      projectRoot: repoRoot,
      depsLockFilePath: `${repoRoot}package-lock.json`,
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: esmRequireShim,
        bundleAwsSDK: true,
        externalModules: [],
        minify: true,
        keepNames: true,
        sourceMap: true,
        sourcesContent: false,
        ...(props.files === undefined ? {} : { commandHooks: copyFiles(props.files) }),
      },
    });
  }
}

/**
 * Copies `files` into the bundle once it is built. They are written to a directory of their own at
 * synth; the asset's hash is the bundle's, so a changed file is deployed.
 */
function copyFiles(files: Readonly<Record<string, string>>) {
  const dir = mkdtempSync(join(tmpdir(), 'swf-function-files-'));
  for (const [name, content] of Object.entries(files)) {
    if (!/^[\w.-]+$/.test(name)) throw new Error(`Not a plain file name: ${name}`);
    writeFileSync(join(dir, name), content);
  }
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_input: string, output: string) =>
      Object.keys(files).map((name) => `cp "${join(dir, name)}" "${join(output, name)}"`),
  };
}
