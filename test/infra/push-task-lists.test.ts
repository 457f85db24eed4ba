/**
 * Push task lists in the stack: every function of the service reads them from SWF_PUSH_TASK_LISTS, the
 * stream function may invoke exactly the pushed functions, and each pushed function may call the API.
 * Bundling is skipped (the templates are what is tested; test/infra/swf-stack.test.ts bundles).
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PushTaskListProps } from '../../infra/swf-service.js';
import { SwfStack } from '../../infra/swf-stack.js';

const noBundling = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const worker = (scope: Construct, id: string) =>
  new LambdaFunction(scope, id, {
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('export const handler = async () => {};'),
  });

type Json = Record<string, unknown>;
/** A resource of a template, as Template.findResources gives it. */
type Resource = ReturnType<Template['findResources']>[string];
const functions = (template: Template) => template.findResources('AWS::Lambda::Function');
/** The one Lambda function whose logical id starts with `prefix`. */
function functionNamed(template: Template, prefix: string): [string, Resource] {
  const found = Object.entries(functions(template)).filter(([id]) => id.startsWith(prefix));
  expect(found).toHaveLength(1);
  const [entry] = found;
  if (entry === undefined) throw new Error(`no function ${prefix}`);
  return entry;
}
const envOf = (template: Template, prefix: string): Json =>
  functionNamed(template, prefix)[1].Properties.Environment?.Variables ?? {};
/** Every statement of the policies attached to the role whose logical id starts with `rolePrefix`. */
const statementsOf = (template: Template, rolePrefix: string): Json[] =>
  Object.values(
    template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: Match.stringLikeRegexp(`^${rolePrefix}`) }] },
    }),
  ).flatMap((policy) => policy.Properties.PolicyDocument.Statement);
const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
/** Policies whose statements mention `text` (an action or a logical id). */
const policiesWith = (template: Template, text: string) =>
  Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
    JSON.stringify(policy).includes(text),
  );
/**
 * A CloudFormation string with each reference as `<id.Attribute>`, `<Ref id>` or `<import name>`; its
 * literal parts joined (Fn::Join).
 */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) throw new Error(`not a string: ${value}`);
  const [entry] = Object.entries(value);
  if (entry === undefined) throw new Error('not a string: {}');
  const [fn, args] = entry;
  if (fn === 'Fn::Join') return args[1].map(render).join(args[0]);
  if (fn === 'Fn::GetAtt') return `<${args.join('.')}>`;
  if (fn === 'Fn::ImportValue') return `<import ${args}>`;
  if (fn === 'Ref') return `<Ref ${args}>`;
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

/** What a pushed function may call: the HTTP API's route, and the API function directly. */
const callsTheApi = [
  { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: expect.anything() },
  { Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: expect.anything() },
];

describe('push task lists', () => {
  let swf: SwfStack;
  let template: Template;
  let workers: Stack;
  let workersTemplate: Template;
  let deciderId: string;
  /** The activity function's ARN in the SWF stack: an import of the Workers stack's export. */
  let activityArn: string;

  // One synth of two stacks: a function of another stack passed in the props, and one of the SWF
  // stack added after it (serving two lists).
  beforeAll(() => {
    const app = noBundling();
    workers = new Stack(app, 'Workers');
    const activities = worker(workers, 'ActivityFn');
    swf = new SwfStack(app, 'PushSwf', {
      pushTaskLists: [
        { kind: 'activity', domain: 'orders', taskList: 'work', function: activities },
      ],
    });
    const decider = worker(swf, 'DeciderFn');
    swf.addPushTaskList({
      kind: 'decision',
      domain: 'orders',
      taskList: 'decide',
      function: decider,
    });
    swf.addPushTaskList({
      kind: 'decision',
      domain: 'bills',
      taskList: 'decide',
      function: decider,
    });
    template = Template.fromStack(swf);
    workersTemplate = Template.fromStack(workers);
    [deciderId] = functionNamed(template, 'DeciderFn');
    const [activityId] = functionNamed(workersTemplate, 'ActivityFn');
    activityArn = render({
      'Fn::ImportValue': only(
        Object.values(workersTemplate.findOutputs('*'))
          .map((output) => output.Export?.Name)
          .filter((name) => name?.includes(activityId) && !name?.includes('Role')),
      ),
    });
    // Two synths (no bundling): seconds, or more on a busy machine (the project sets no hookTimeout).
  }, 60_000);

  it('gives the api, stream and timer functions the lists as JSON in SWF_PUSH_TASK_LISTS', () => {
    const decider = render(arnOf(deciderId));
    for (const prefix of ['ApiHandler', 'OutboxStreamHandler', 'OutboxTimerHandler']) {
      expect(JSON.parse(render(envOf(template, prefix).SWF_PUSH_TASK_LISTS))).toEqual([
        { kind: 'activity', domain: 'orders', taskList: 'work', target: activityArn },
        { kind: 'decision', domain: 'orders', taskList: 'decide', target: decider },
        { kind: 'decision', domain: 'bills', taskList: 'decide', target: decider },
      ]);
    }
    expect(activityArn).toMatch(/^<import Workers:ExportsOutputFnGetAttActivityFn\w+Arn\w+>$/);
  });

  it('lets the api (both), stream, timer and Lambda-task functions invoke the pushed functions, and no other', () => {
    // Each commits changes that schedule tasks, and invokes the function of a pushed one (the
    // stream function also hands Lambda tasks to their function: see swf-stack.test.ts).
    const prefixes = [
      'ApiHandler',
      'ApiDirectHandler',
      'OutboxStreamHandler',
      'OutboxTimerHandler',
      'OutboxLambdaTaskHandler',
    ];
    for (const prefix of prefixes) {
      const invokes = statementsOf(template, prefix).filter(
        (s) =>
          JSON.stringify(s.Action).includes('lambda:') &&
          !JSON.stringify(s.Resource).includes('OutboxLambdaTaskHandler'),
      );
      expect(invokes).toHaveLength(1);
      expect(invokes[0]?.Action).toBe('lambda:InvokeFunction');
      expect(invokes[0]?.Effect).toBe('Allow');
      expect(invokes[0]?.Condition).toBeUndefined();
      expect([invokes[0]?.Resource].flat().map(render)).toEqual([
        activityArn,
        render(arnOf(deciderId)),
      ]);
    }
    // Beside the pushed functions' own grants to call the API function (see below).
    expect(
      policiesWith(template, 'lambda:Invoke').filter((p) =>
        JSON.stringify(p.Properties.Roles).includes('Handler'),
      ),
    ).toHaveLength(5);
  });

  it('points a pushed function of the stack at the API, and lets it call the API and its function', () => {
    const env = envOf(template, 'DeciderFn');
    expect(env.SWF_ENDPOINT).toEqual(template.findOutputs('SwfEndpoint').SwfEndpoint?.Value);
    expect(env.SWF_SIGNING_NAME).toBe('execute-api');
    const [roleId] = Object.keys(template.findResources('AWS::IAM::Role')).filter((id) =>
      id.startsWith('DeciderFnServiceRole'),
    );
    const [grant] = policiesWith(template, `"${roleId}"`);
    expect(grant?.Properties.PolicyDocument.Statement).toEqual(callsTheApi);
    const [statement, invoke] = grant?.Properties.PolicyDocument.Statement ?? [];
    expect(render(statement.Resource)).toBe(
      'arn:<Ref AWS::Partition>:execute-api:<Ref AWS::Region>:<Ref AWS::AccountId>:<Ref ApiHttpApi4C294DC0>/*/POST/',
    );
    // The API function workers invoke directly (task-token calls only), which the events name for
    // the handlers to call; not the front door's, which takes the caller from its event.
    expect(invoke.Resource.map(render)).toEqual([
      '<ApiDirectHandler9DBA6E0C.Arn>',
      '<ApiDirectHandler9DBA6E0C.Arn>:*',
    ]);
    expect(JSON.stringify(policiesWith(template, `"${roleId}"`))).not.toContain(
      'ApiHandler8AD6A8DF',
    );
    // The service's functions name it in the events they push (it knows its own name).
    for (const prefix of [
      'ApiHandler',
      'OutboxStreamHandler',
      'OutboxTimerHandler',
      'OutboxLambdaTaskHandler',
    ])
      expect(render(envOf(template, prefix).SWF_API_FUNCTION)).toBe(
        '<Ref ApiDirectHandler9DBA6E0C>',
      );
    expect(envOf(template, 'ApiDirectHandler').SWF_API_FUNCTION).toBeUndefined();
    Annotations.fromStack(swf).hasNoWarning('/PushSwf/DeciderFn', Match.anyValue());
  });

  it('grants a function of another stack from this stack (no cycle), and warns it has no SWF_ENDPOINT', () => {
    const [grant] = policiesWith(template, 'Workers:ExportsOutputFnGetAttActivityFnServiceRole');
    expect(grant?.Properties.PolicyDocument.Statement).toEqual(callsTheApi);
    const env = envOf(workersTemplate, 'ActivityFn');
    expect(env.SWF_ENDPOINT).toBeUndefined();
    expect(env.SWF_SIGNING_NAME).toBe('execute-api');
    // The Workers stack does not depend on the SWF stack (which depends on it).
    expect(JSON.stringify(workersTemplate.toJSON())).not.toContain('Fn::ImportValue');
    Annotations.fromStack(workers).hasWarning(
      '/Workers/ActivityFn',
      Match.stringLikeRegexp(
        '^SWF_ENDPOINT is not set on this pushed function: it is in another stack',
      ),
    );
  });

  it('behind a function URL: signs for lambda, grants the URL, and warns of the cycle an endpoint would make', () => {
    const stack = new SwfStack(noBundling(), 'UrlPush', { frontDoor: 'function-url' });
    const fn = worker(stack, 'UrlWorker');
    stack.addPushTaskList({ kind: 'activity', domain: 'd', taskList: 't', function: fn });
    const urlTemplate = Template.fromStack(stack);
    const env = envOf(urlTemplate, 'UrlWorker');
    expect(env.SWF_SIGNING_NAME).toBe('lambda');
    expect(env.SWF_ENDPOINT).toBeUndefined();
    const [grant] = policiesWith(urlTemplate, 'lambda:InvokeFunctionUrl');
    expect(JSON.stringify(grant?.Properties.Roles)).toContain('UrlWorkerServiceRole');
    Annotations.fromStack(stack).hasWarning(
      '/UrlPush/UrlWorker',
      Match.stringLikeRegexp('the function URL depends on the api function'),
    );
  });

  it("warns when an activity function's timeout leaves the activity no time (Lambda's default 3 s)", () => {
    const stack = new SwfStack(noBundling(), 'ShortPush');
    const short = worker(stack, 'ShortWorker');
    const long = new LambdaFunction(stack, 'LongWorker', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => {};'),
      timeout: Duration.minutes(5),
    });
    stack.addPushTaskList({ kind: 'activity', domain: 'd', taskList: 'short', function: short });
    stack.addPushTaskList({ kind: 'activity', domain: 'd', taskList: 'long', function: long });
    const annotations = Annotations.fromStack(stack);
    annotations.hasWarning(
      '/ShortPush/ShortWorker',
      Match.stringLikeRegexp('timeout of 3 s: activityTaskHandler cancels an activity'),
    );
    annotations.hasNoWarning('/ShortPush/LongWorker', Match.anyValue());
  });

  it('sets nothing when no task list is pushed (the default app)', () => {
    const plain = Template.fromStack(new SwfStack(noBundling(), 'Plain'));
    for (const fn of Object.values(functions(plain)))
      expect(fn.Properties.Environment?.Variables?.SWF_PUSH_TASK_LISTS).toBeUndefined();
    // Only the stream function's hand-over of Lambda tasks to their function.
    const invokes = policiesWith(plain, 'lambda:InvokeFunction').flatMap((p) =>
      p.Properties.PolicyDocument.Statement.filter(
        (s: { Action: unknown }) => s.Action === 'lambda:InvokeFunction',
      ),
    );
    expect(invokes.map((s: { Resource: unknown }) => JSON.stringify(s.Resource))).toEqual([
      expect.stringContaining('OutboxLambdaTaskHandler'),
    ]);
  });

  describe('bad lists fail the synth', () => {
    const app = noBundling();
    const elsewhere = new Stack(app, 'Elsewhere');
    const fn = worker(elsewhere, 'Fn');
    const list: PushTaskListProps = { kind: 'decision', domain: 'd', taskList: 't', function: fn };
    let n = 0;
    const build = (pushTaskLists: readonly PushTaskListProps[]) => () =>
      new SwfStack(app, `Bad${n++}`, { pushTaskLists });

    it.each([
      [
        'an empty domain',
        [list, { ...list, domain: ' ' }],
        'pushTaskLists[1].domain must be a non-empty string, not " "',
      ],
      [
        'an empty task list',
        [{ ...list, taskList: '' }],
        'pushTaskLists[0].taskList must be a non-empty string, not ""',
      ],
      [
        'a wrong kind',
        [{ ...list, kind: JSON.parse('"lambda"') }],
        'pushTaskLists[0].kind must be "activity" or "decision", not "lambda"',
      ],
      [
        'a list twice',
        [list, { ...list, kind: 'activity' }, { ...list, function: worker(elsewhere, 'Other') }],
        'pushTaskLists[2] repeats the decision task list "t" of domain "d"',
      ],
    ] as const)('%s', (_, lists, message) => {
      expect(build(lists)).toThrow(message);
    });

    it('also when it is added later', () => {
      expect(() => swf.addPushTaskList({ ...list, domain: 'orders', taskList: 'decide' })).toThrow(
        'pushTaskLists[3] repeats the decision task list "decide" of domain "orders"',
      );
    });
  });
});

function only<T>(items: readonly T[]): T {
  expect(items).toHaveLength(1);
  const [item] = items;
  if (item === undefined) throw new Error('none');
  return item;
}
