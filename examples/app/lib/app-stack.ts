import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { SwfService } from 'swf-on-dynamo/cdk';
import { ACTIVITIES, DECISIONS, DOMAIN } from '../src/workflow.js';

/**
 * The SWF service and this app's workers: the decider and the activity worker are Lambda functions
 * serving push task lists, invoked by the service with each task (no pollers to run).
 */
export class AppStack extends Stack {
  readonly swf: SwfService;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    this.swf = new SwfService(this, 'Swf');
    const decider = workerFunction(this, 'Decider', 'decider.ts', Duration.seconds(30));
    // An activity gets the function's time limit less 12 s (its cancellation grace and the report).
    const worker = workerFunction(this, 'Worker', 'worker.ts', Duration.minutes(2));
    this.swf.addPushTaskList({
      kind: 'decision',
      domain: DOMAIN,
      taskList: DECISIONS,
      function: decider,
    });
    this.swf.addPushTaskList({
      kind: 'activity',
      domain: DOMAIN,
      taskList: ACTIVITIES,
      function: worker,
    });
    new CfnOutput(this, 'SwfEndpoint', { value: this.swf.endpoint });
    new CfnOutput(this, 'SwfSigningName', { value: this.swf.signingName });
  }
}

/** A handler of src/, bundled by the local esbuild with the SDK (and the AWS SDK it was tested with). */
function workerFunction(scope: Construct, id: string, file: string, timeout: Duration) {
  return new NodejsFunction(scope, id, {
    entry: fileURLToPath(new URL(`../src/${file}`, import.meta.url)),
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    memorySize: 256,
    timeout,
    bundling: {
      format: OutputFormat.ESM,
      bundleAwsSDK: true,
      minify: true,
      sourceMap: true,
      // CommonJS parts of the AWS SDK require Node's built-ins; an ES module has no `require`.
      banner:
        "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    environment: { NODE_OPTIONS: '--enable-source-maps' },
  });
}
