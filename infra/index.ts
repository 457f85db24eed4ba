/**
 * `swf-on-dynamo/cdk`: the service as a CDK construct for a stack of your own (`SwfService`), or as
 * a stack of its own (`SwfStack`). Its functions come prebuilt with the package: a synth needs
 * neither esbuild nor Docker nor the network for them.
 */
export type { FrontDoor } from './constructs/swf-api.js';
export { type PushTaskListProps, SwfService, type SwfServiceProps } from './swf-service.js';
export { SwfStack, type SwfStackProps } from './swf-stack.js';
