/**
 * The reconciler in the deployed stack: a function run every hour that reads the table (Query
 * and GetItem only: it never scans, and writes nothing), arms fires as the outbox does, and alarms on
 * every fire it had to arm again and on a failed pass.
 */
import { App, Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOST_FIRES_METRIC } from '../../infra/constructs/swf-reconciler.js';
import { SwfStack } from '../../infra/swf-stack.js';
import { LOST_FIRE_LINE } from '../../lib/operations/reconcile.js';

describe('the reconciler in the stack', () => {
  let template: Template;
  beforeAll(() => {
    template = Template.fromStack(new SwfStack(new App(), 'ReconcilerStack'));
  }, 120_000);

  const idOf = (type: string, prefix: string) => {
    const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
    expect(ids).toHaveLength(1);
    return ids[0] as string;
  };
  const actionsOf = (rolePrefix: string): string[] =>
    Object.values(
      template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp(`^${rolePrefix}`) }] },
      }),
    )
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
      .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

  it('runs every hour, or as often as the service is told', () => {
    const fn = idOf('AWS::Lambda::Function', 'ReconcilerHandler');
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fn, 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [fn, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
    const every15 = Template.fromStack(
      new SwfStack(new App(), 'Every15', { reconcileEvery: Duration.minutes(15) }),
    );
    every15.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(15 minutes)' });
  });

  it('reads the table without a Scan, writes nothing to it, and arms fires as the timer does', () => {
    const actions = actionsOf('ReconcilerHandlerServiceRole');
    const table = actions.filter((a) => a.startsWith('dynamodb:'));
    expect(table.sort()).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
    expect(actions).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'scheduler:CreateSchedule', 'iam:PassRole']),
    );
    const fn =
      template.findResources('AWS::Lambda::Function')[
        idOf('AWS::Lambda::Function', 'ReconcilerHandler')
      ];
    expect(Object.keys(fn?.Properties.Environment.Variables).sort()).toEqual(
      expect.arrayContaining([
        'TABLE_NAME',
        'TIMER_QUEUE_URL',
        'TIMER_QUEUE_ARN',
        'SCHEDULE_GROUP',
        'SCHEDULER_ROLE_ARN',
      ]),
    );
  });

  it('counts the fires it arms again from its log, and alarms on them and on failed passes', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: `"${LOST_FIRE_LINE}"`,
      MetricTransformations: [
        Match.objectLike({
          MetricNamespace: LOST_FIRES_METRIC.namespace,
          MetricName: LOST_FIRES_METRIC.metricName,
        }),
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: LOST_FIRES_METRIC.metricName,
      Namespace: LOST_FIRES_METRIC.namespace,
      Threshold: 1,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [
        {
          Name: 'FunctionName',
          Value: { Ref: idOf('AWS::Lambda::Function', 'ReconcilerHandler') },
        },
      ],
    });
  });
});
