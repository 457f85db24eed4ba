import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYED_LAMBDA } from '../../bench/scenarios/cost.js';
import { SwfStack } from '../../infra/swf-stack.js';
import { isOutboxRecord } from '../../lib/adapters/dynamodb/stream-records.js';
import { createTableInput, tableSchema } from '../../lib/adapters/dynamodb/table-schema.js';
import {
  actionsOf,
  logWriting,
  matchesPattern,
  only,
  StackResources,
  secretReading,
  sortByName,
  tableActions,
  wakeSending,
  wakeWaiting,
} from '../support/stack-resources.js';

describe('SwfStack', () => {
  let template: Template;
  let stack: StackResources;

  // One synth per file: it bundles functions/api.ts with esbuild (the project sets no hookTimeout).
  beforeAll(() => {
    template = Template.fromStack(new SwfStack(new App(), 'TestSwfStack'));
    stack = new StackResources(template);
  }, 120_000);

  describe('table', () => {
    it('has the keys, indexes and key attribute types of the local table (createTableInput)', () => {
      const local = createTableInput('unused');
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'gsi1',
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      });
      // The same schema as the local server's table, field by field.
      const props = template.findResources('AWS::DynamoDB::Table')[stack.tableId()]?.Properties;
      expect(props?.KeySchema).toEqual(local.KeySchema);
      expect(props?.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
      expect(sortByName(props?.AttributeDefinitions)).toEqual(
        sortByName(local.AttributeDefinitions),
      );
    });

    it('expires items by expiresAt and streams new and old images', () => {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      });
      expect(tableSchema.timeToLiveAttribute).toBe('expiresAt');
    });

    it('is on demand, point-in-time recoverable and retained by default', () => {
      template.hasResource('AWS::DynamoDB::Table', {
        Properties: {
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        },
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    });
  });

  describe('api function', () => {
    it('runs Node 22 on ARM64 with the table name, account id and source maps', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Environment: {
          Variables: Match.objectLike({
            TABLE_NAME: { Ref: stack.tableId() },
            ACCOUNT_ID: { Ref: 'AWS::AccountId' },
            POLL_MAX_WAIT_MS: '20000',
            NODE_OPTIONS: '--enable-source-maps',
          }),
        },
        LoggingConfig: { LogGroup: Match.anyValue() },
      });
    });

    it('has the memory the cost model prices it at, as the outbox functions do', () => {
      const memory = (id: string) =>
        template.findResources('AWS::Lambda::Function')[id]?.Properties.MemorySize;
      expect(memory(stack.functionId())).toBe(DEPLOYED_LAMBDA.apiMemoryMb);
      expect(memory(stack.functionNamed('OutboxStreamHandler'))).toBe(DEPLOYED_LAMBDA.memoryMb);
      expect(memory(stack.functionNamed('OutboxTimerHandler'))).toBe(DEPLOYED_LAMBDA.memoryMb);
    });

    it('logs to its own log group with a retention', () => {
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    });

    it('may read and write the table and its indexes', () => {
      const tableArn = { 'Fn::GetAtt': [stack.tableId(), 'Arn'] };
      const statements = stack.statementsOf('ApiHandlerServiceRole');
      expect(statements).toEqual(
        expect.arrayContaining([
          {
            Effect: 'Allow',
            Action: expect.arrayContaining([
              'dynamodb:GetItem',
              'dynamodb:PutItem',
              'dynamodb:UpdateItem',
              'dynamodb:DeleteItem',
              'dynamodb:Query',
              'dynamodb:ConditionCheckItem',
            ]),
            Resource: [tableArn, { 'Fn::Join': ['', [tableArn, '/index/*']] }],
          },
        ]),
      );
    });

    it('raises alarms on errors, throttles and 5xx answers', () => {
      for (const metric of ['Errors', 'Throttles']) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: stack.functionId() } }],
          Threshold: 1,
        });
      }
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: '5xx',
      });
    });
  });

  describe('HTTP API', () => {
    it('routes POST / with IAM authorization to the api function (payload v2)', () => {
      const integrations = template.findResources('AWS::ApiGatewayV2::Integration', {
        Properties: {
          IntegrationType: 'AWS_PROXY',
          PayloadFormatVersion: '2.0',
          IntegrationUri: { 'Fn::GetAtt': [stack.functionId(), 'Arn'] },
        },
      });
      const integrationId = only(integrations);
      template.resourceCountIs('AWS::ApiGatewayV2::Route', 1);
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: 'POST /',
        AuthorizationType: 'AWS_IAM',
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] },
      });
    });

    it('outputs the endpoint and the signing name its clients use', () => {
      const apiId = only(template.findResources('AWS::ApiGatewayV2::Api'));
      template.hasOutput('SwfEndpoint', { Value: { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] } });
      template.hasOutput('SwfSigningName', { Value: 'execute-api' });
    });
  });

  describe('api function grants', () => {
    it.each([
      ['ApiHandlerServiceRole', [...wakeSending, ...wakeWaiting]],
      ['ApiDirectHandlerServiceRole', wakeSending],
    ])(
      '%s may do nothing but its table items, read the signing key and use the wake queues: no other queue, schedule, role or stream access',
      (role, wakes) => {
        expect([...actionsOf(stack.statementsOf(role))].sort()).toEqual(
          [...tableActions, ...secretReading, ...logWriting, ...wakes].sort(),
        );
      },
    );
  });

  describe('outbox', () => {
    const queueArn = (prefix: string) => ({
      'Fn::GetAtt': [stack.resourceNamed('AWS::SQS::Queue', prefix), 'Arn'],
    });
    const timerQueueArn = () => queueArn('OutboxTimerQueue');
    const schedulerRoleArn = () => ({
      'Fn::GetAtt': [stack.resourceNamed('AWS::IAM::Role', 'OutboxSchedulerRole'), 'Arn'],
    });
    const groupId = () => only(template.findResources('AWS::Scheduler::ScheduleGroup'));
    const groupName = (): string =>
      template.findResources('AWS::Scheduler::ScheduleGroup')[groupId()]?.Properties.Name;

    it('has a timer queue that dead-letters a fire after 5 receives, both encrypted', () => {
      const dlq = stack.resourceNamed('AWS::SQS::Queue', 'OutboxTimerDeadLetters');
      template.hasResourceProperties('AWS::SQS::Queue', {
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] },
          maxReceiveCount: 5,
        },
        // Six times the timer function's 30 s timeout, as Lambda advises for an SQS event source.
        VisibilityTimeout: 180,
        SqsManagedSseEnabled: true,
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: stack.resourceNamed('AWS::SQS::Queue', 'OutboxTimerQueue') }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });

    it('has one schedule group', () => {
      expect(groupName()).toMatch(/^[0-9a-zA-Z-_.]{1,64}$/);
    });

    it('lets only Scheduler, for schedules of its group, assume the role that may only send to the queue', () => {
      const roleId = stack.resourceNamed('AWS::IAM::Role', 'OutboxSchedulerRole');
      const role = template.findResources('AWS::IAM::Role')[roleId];
      expect(role?.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        {
          Effect: 'Allow',
          Action: 'sts:AssumeRole',
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: {
            StringEquals: {
              'aws:SourceAccount': { Ref: 'AWS::AccountId' },
              'aws:SourceArn': { 'Fn::GetAtt': [groupId(), 'Arn'] },
            },
          },
        },
      ]);
      expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
      // The fire, and the fires it gave up delivering (the schedules' dead-letter queue).
      expect(stack.statementsOf('OutboxSchedulerRole')).toEqual([
        {
          Effect: 'Allow',
          Action: 'sqs:SendMessage',
          Resource: [timerQueueArn(), queueArn('OutboxScheduleDeadLetters')],
        },
      ]);
    });

    it.each([
      ['OutboxStreamHandler', 'stream'],
      ['OutboxTimerHandler', 'timer'],
    ])(
      '%s runs Node 22 on ARM64 with the table, queue, group and role in its environment',
      (id) => {
        const fn = template.findResources('AWS::Lambda::Function')[stack.functionNamed(id)];
        expect(fn?.Properties).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
          Environment: {
            Variables: {
              TABLE_NAME: { Ref: stack.tableId() },
              TIMER_QUEUE_URL: { Ref: stack.resourceNamed('AWS::SQS::Queue', 'OutboxTimerQueue') },
              TIMER_QUEUE_ARN: timerQueueArn(),
              SCHEDULE_GROUP: groupName(),
              SCHEDULER_ROLE_ARN: schedulerRoleArn(),
              SCHEDULE_DEAD_LETTER_ARN: queueArn('OutboxScheduleDeadLetters'),
              ACCOUNT_ID: { Ref: 'AWS::AccountId' },
            },
          },
        });
      },
    );

    it('feeds the table stream to the stream function with bisection, retries until the records are 6 hours old, and an on-failure queue', () => {
      const mappings = template.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { FunctionName: { Ref: stack.functionNamed('OutboxStreamHandler') } },
      });
      const props = mappings[only(mappings)]?.Properties;
      expect(props).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [stack.tableId(), 'StreamArn'] },
        StartingPosition: 'TRIM_HORIZON',
        BisectBatchOnFunctionError: true,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: queueArn('OutboxStreamFailures') } },
        ParallelizationFactor: 10,
      });
      // Retried by age, not by count: a batch is given up only once its records are 6 hours old,
      // leaving 18 of the stream's 24 hours to redrive it.
      expect(props.MaximumRetryAttempts).toBe(-1);
      expect(props.MaximumRecordAgeInSeconds).toBe(6 * 3600);
      // Only run-state changes carry effects, and only those the writer marked as having work for
      // the outbox (or written before the mark existed) invoke the function.
      const patterns: unknown[] = props.FilterCriteria.Filters.map((f: { Pattern: string }) =>
        JSON.parse(f.Pattern),
      );
      // The local stream poller hands the outbox the same records (isOutboxRecord).
      const passes = (record: object) => {
        const filtered = patterns.some((p) => matchesPattern(p, record));
        expect(isOutboxRecord(record)).toBe(filtered);
        return filtered;
      };
      const image = (extra: object) => ({
        dynamodb: { NewImage: { pk: { S: 'RUN#r' }, ...extra } },
      });
      expect(passes(image({ entity: { S: 'Run' }, fx: { BOOL: true } }))).toBe(true);
      expect(passes(image({ entity: { S: 'Run' } }))).toBe(true);
      expect(passes(image({ entity: { S: 'Run' }, fx: { BOOL: false } }))).toBe(false);
      expect(passes(image({ entity: { S: 'QueuedTask' }, fx: { BOOL: true } }))).toBe(false);
      expect(passes(image({}))).toBe(false);
      expect(
        passes({ eventName: 'REMOVE', dynamodb: { OldImage: { entity: { S: 'Run' } } } }),
      ).toBe(false);
    });

    it('feeds the timer queue to the timer function, reporting failed fires one by one', () => {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: stack.functionNamed('OutboxTimerHandler') },
        EventSourceArn: timerQueueArn(),
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    it('grants each function exactly what it calls', () => {
      const arming = ['sqs:SendMessage', 'scheduler:CreateSchedule', 'iam:PassRole'];
      const streamReading = [
        'dynamodb:ListStreams',
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
      ];
      const onFailure = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
      const queueReading = [
        'sqs:ReceiveMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
      ];
      const sorted = (actions: Iterable<string>) => [...new Set(actions)].sort();
      expect(sorted(actionsOf(stack.statementsOf('OutboxStreamHandlerServiceRole')))).toEqual(
        sorted([
          ...tableActions,
          ...secretReading,
          ...logWriting,
          ...arming,
          'scheduler:DeleteSchedule',
          'lambda:InvokeFunction',
          ...streamReading,
          ...onFailure,
        ]),
      );
      // The Lambda-task function reads and writes runs (and assumes the roles it is allowed, none by
      // default: test/infra/access-control.test.ts): nothing else.
      expect(sorted(actionsOf(stack.statementsOf('OutboxLambdaTaskHandlerServiceRole')))).toEqual(
        sorted([...tableActions, ...secretReading, ...logWriting, ...wakeSending]),
      );
      expect(sorted(actionsOf(stack.statementsOf('OutboxTimerHandlerServiceRole')))).toEqual(
        sorted([...tableActions, ...secretReading, ...logWriting, ...arming, ...queueReading]),
      );
    });

    it.each(['OutboxStreamHandlerServiceRole', 'OutboxTimerHandlerServiceRole'])(
      '%s arms deadlines on the timer queue and in its schedule group only',
      (role) => {
        const statements = stack.statementsOf(role);
        const scheduleArns = {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':scheduler:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              `:schedule/${groupName()}/*`,
            ],
          ],
        };
        expect(statements).toEqual(
          expect.arrayContaining([
            { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: timerQueueArn() },
            { Effect: 'Allow', Action: 'scheduler:CreateSchedule', Resource: scheduleArns },
            {
              Effect: 'Allow',
              Action: 'iam:PassRole',
              Resource: schedulerRoleArn(),
              Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
            },
          ]),
        );
        // Only the stream function disarms (deletes) schedules, and only in the group.
        const deletes = statements.filter((st) => st.Action === 'scheduler:DeleteSchedule');
        expect(deletes).toEqual(
          role === 'OutboxStreamHandlerServiceRole'
            ? [{ Effect: 'Allow', Action: 'scheduler:DeleteSchedule', Resource: scheduleArns }]
            : [],
        );
        // Nothing scheduler-, IAM- or queue-wide: the only '*' resource is ListStreams (no resource level).
        for (const statement of statements) {
          const actions = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
          if (statement.Resource === '*') expect(actions).toEqual(['dynamodb:ListStreams']);
          for (const action of actions) expect(action).not.toMatch(/\*$/);
        }
      },
    );

    it('runs Lambda tasks in a function of their own, which assumes no role unless allowed some', () => {
      expect(actionsOf(stack.statementsOf('OutboxLambdaTaskHandlerServiceRole'))).not.toContain(
        'sts:AssumeRole',
      );
      expect(actionsOf(stack.statementsOf('OutboxStreamHandlerServiceRole'))).not.toContain(
        'sts:AssumeRole',
      );
      // The stream function hands each started task over: it may invoke that function, and only it.
      const invokes = stack
        .statementsOf('OutboxStreamHandlerServiceRole')
        .filter((st) => st.Action === 'lambda:InvokeFunction');
      expect(JSON.stringify(invokes)).toContain('OutboxLambdaTaskHandler');
      expect(JSON.stringify(invokes)).not.toMatch(/ApiHandler|TimerHandler|"\*"/);
      const [id, fn] = Object.entries(template.findResources('AWS::Lambda::Function')).find(
        ([key]) => key.startsWith('OutboxLambdaTaskHandler'),
      ) ?? [undefined, undefined];
      expect(fn?.Properties.Timeout).toBe(900);
      expect(fn?.Properties.MemorySize).toBe(256);
      const stream = Object.entries(template.findResources('AWS::Lambda::Function')).find(([key]) =>
        key.startsWith('OutboxStreamHandler'),
      )?.[1];
      expect(stream?.Properties.Environment.Variables.LAMBDA_TASK_FUNCTION).toEqual({ Ref: id });
      // Handed over once: Lambda does not retry the asynchronous Invoke, and drops an event older
      // than the longest task (one it held back while throttled).
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: id },
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 900,
      });
    });

    it('raises alarms on dead letters, stream lag, function errors and dead-lettered records', () => {
      for (const prefix of ['OutboxTimerDeadLetters', 'OutboxStreamFailures']) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [
            {
              Name: 'QueueName',
              Value: {
                'Fn::GetAtt': [stack.resourceNamed('AWS::SQS::Queue', prefix), 'QueueName'],
              },
            },
          ],
          Threshold: 1,
        });
      }
      const stream = {
        Name: 'FunctionName',
        Value: { Ref: stack.functionNamed('OutboxStreamHandler') },
      };
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Statistic: 'Maximum',
        Dimensions: [stream],
        Threshold: 60_000,
      });
      for (const id of ['OutboxStreamHandler', 'OutboxTimerHandler']) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: stack.functionNamed(id) } }],
          Threshold: 1,
        });
      }
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        LogGroupName: {
          Ref: stack.resourceNamed('AWS::Logs::LogGroup', 'OutboxStreamHandlerLogs'),
        },
        FilterPattern: '"stream record dead-lettered"',
        MetricTransformations: [
          { MetricNamespace: 'SwfOnDynamo', MetricName: 'DeadLetteredRecords', MetricValue: '1' },
        ],
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'SwfOnDynamo',
        MetricName: 'DeadLetteredRecords',
        Threshold: 1,
      });
    });
  });
});
