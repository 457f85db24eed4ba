import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { SwfApi } from './constructs/swf-api.js';
import type { SwfOutbox } from './constructs/swf-outbox.js';
import type { SwfTable } from './constructs/swf-table.js';
import { type PushTaskListProps, SwfService, type SwfServiceProps } from './swf-service.js';

export interface SwfStackProps extends StackProps, SwfServiceProps {}

/**
 * A stack holding the service alone, with its endpoint and signing name as outputs: what
 * `npx cdk deploy` deploys from this repository (infra/app.ts). In an app of your own, add
 * `SwfService` to a stack of yours instead.
 */
export class SwfStack extends Stack {
  readonly service: SwfService;

  constructor(scope: Construct, id: string, props: SwfStackProps = {}) {
    super(scope, id, props);
    // `Default` is left out of the resources' logical ids: they stay those the stack's resources had
    // before the service was a construct of its own, so an update replaces nothing.
    this.service = new SwfService(this, 'Default', props);
    new CfnOutput(this, 'SwfEndpoint', {
      description:
        this.service.signingName === 'execute-api'
          ? 'Point SWF clients here (SigV4 as execute-api; execute-api:Invoke on POST /)'
          : 'Point SWF clients here (SigV4 as lambda; lambda:InvokeFunctionUrl and lambda:InvokeFunction)',
      value: this.service.endpoint,
    });
    new CfnOutput(this, 'SwfSigningName', {
      description: "The SigV4 service name SWF clients sign with (createSwfClient's signingName)",
      value: this.service.signingName,
    });
  }

  get table(): SwfTable {
    return this.service.table;
  }

  get api(): SwfApi {
    return this.service.api;
  }

  get outbox(): SwfOutbox {
    return this.service.outbox;
  }

  /** See SwfService.addPushTaskList. */
  addPushTaskList(list: PushTaskListProps): void {
    this.service.addPushTaskList(list);
  }
}
