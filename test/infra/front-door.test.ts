/**
 * The API function's front door: API Gateway's HTTP API (the design's, the default) or, as a deploy
 * option, the function's own URL with IAM authorization. What each creates, and what a client must be
 * granted to call it.
 */
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { SwfApi } from '../../infra/constructs/swf-api.js';
import { SwfStack } from '../../infra/swf-stack.js';

/** Statements of the policies attached to the role named `Client`. */
const clientStatements = (template: Template) =>
  Object.values(
    template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: Match.stringLikeRegexp('^Client') }] },
    }),
  ).flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]);

const apiFunctionId = (template: Template) => {
  const ids = Object.keys(template.findResources('AWS::Lambda::Function')).filter((id) =>
    id.startsWith('ApiHandler'),
  );
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
};

describe('front door: function URL', () => {
  let template: Template;

  // One synth: it bundles the functions with esbuild.
  beforeAll(() => {
    const stack = new SwfStack(new App(), 'UrlStack', { frontDoor: 'function-url' });
    stack.api.grantInvoke(new Role(stack, 'Client', { assumedBy: new AccountRootPrincipal() }));
    template = Template.fromStack(stack);
  }, 120_000);

  it('puts the api function behind its own URL with IAM authorization, and no API Gateway', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'AWS_IAM',
      TargetFunctionArn: { 'Fn::GetAtt': [apiFunctionId(template), 'Arn'] },
    });
    template.hasOutput('SwfEndpoint', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ApiHandlerFunctionUrl'), 'FunctionUrl'] },
    });
    template.hasOutput('SwfSigningName', { Value: 'lambda' });
  });

  it("answers a poll within the function's time, and alarms on the URL's 5xx answers", () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 28,
      Environment: { Variables: Match.objectLike({ POLL_MAX_WAIT_MS: '20000' }) },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Url5xxCount',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: apiFunctionId(template) } }],
    });
  });

  it('grants a client both permissions a function URL with IAM authorization asks for', () => {
    const actions = clientStatements(template).map((s) => s.Action);
    expect(actions).toEqual(
      expect.arrayContaining(['lambda:InvokeFunctionUrl', 'lambda:InvokeFunction']),
    );
    const urlStatement = clientStatements(template).find(
      (s) => s.Action === 'lambda:InvokeFunctionUrl',
    );
    expect(urlStatement?.Condition).toEqual({
      StringEquals: { 'lambda:FunctionUrlAuthType': 'AWS_IAM' },
    });
  });
});

describe('front door: HTTP API', () => {
  it('grants a client execute-api:Invoke on POST / only, and signs as execute-api', () => {
    const stack = new Stack(new App(), 'ApiStack');
    const api = new SwfApi(stack, 'Api');
    api.grantInvoke(new Role(stack, 'Client', { assumedBy: new AccountRootPrincipal() }));
    const template = Template.fromStack(stack);
    const [statement, ...others] = clientStatements(template);
    expect(others).toEqual([]);
    expect(statement?.Action).toBe('execute-api:Invoke');
    // arn:<partition>:execute-api:<region>:<account>:<api id>/*/POST/ : any stage, POST /, nothing else
    const resource = statement?.Resource as { 'Fn::Join': [string, unknown[]] } | undefined;
    const parts = resource?.['Fn::Join'][1] ?? [];
    expect(parts.at(-2)).toEqual({ Ref: expect.stringMatching(/^ApiHttpApi/) });
    expect(parts.at(-1)).toBe('/*/POST/');
    expect(api.signingName).toBe('execute-api');
  }, 120_000);

  it("lets the stack's long polls wait SWF's 60 s behind a URL (-c pollMaxWaitSeconds=60)", () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new SwfStack(app, 'LongPolls', {
      frontDoor: 'function-url',
      pollMaxWait: Duration.seconds(60),
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 68,
      Environment: { Variables: Match.objectLike({ POLL_MAX_WAIT_MS: '60000' }) },
    });
  });

  it('looks at the queue again every second by default, or as often as -c pollRecheckMs says', () => {
    const recheckOf = (props: { pollRecheck?: Duration }) => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const functions = Template.fromStack(new SwfStack(app, 'Rechecks', props)).findResources(
        'AWS::Lambda::Function',
        {
          Properties: {
            Environment: { Variables: Match.objectLike({ POLL_MAX_WAIT_MS: '20000' }) },
          },
        },
      );
      return Object.values(functions).map(
        (f) => f.Properties.Environment.Variables.POLL_RECHECK_MS,
      );
    };
    expect(recheckOf({})).toEqual(['1000']);
    expect(recheckOf({ pollRecheck: Duration.millis(250) })).toEqual(['250']);
    const stack = new Stack(new App(), 'Rechecks');
    expect(() => new SwfApi(stack, 'TooOften', { pollRecheck: Duration.millis(10) })).toThrow(
      /pollRecheck must be from 50 ms to pollMaxWait/,
    );
    expect(
      () =>
        new SwfApi(stack, 'Never', {
          pollMaxWait: Duration.seconds(5),
          pollRecheck: Duration.seconds(6),
        }),
    ).toThrow(/pollRecheck must be from 50 ms to pollMaxWait \(5000 ms\)/);
  });

  it("refuses a poll that would outlast API Gateway's 30 s, and allows SWF's 60 s behind a URL", () => {
    const stack = new Stack(new App(), 'Polls');
    expect(() => new SwfApi(stack, 'Late', { pollMaxWait: Duration.seconds(30) })).toThrow(
      /pollMaxWait must be from 1 to 25 s behind a http-api/,
    );
    expect(
      () =>
        new SwfApi(stack, 'TooLate', {
          frontDoor: 'function-url',
          pollMaxWait: Duration.seconds(61),
        }),
    ).toThrow(/from 1 to 60 s/);
  });
});
