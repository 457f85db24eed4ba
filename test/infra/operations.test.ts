/**
 * What makes a deployed stack operable: alarms that tell someone (on ALARM and on OK), the alarms on
 * what the service depends on, the dashboard, the schedules' dead-letter queue, reserved
 * concurrency, the table's protection, key and warm throughput, JSON logs and tracing.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { contextProps } from '../../infra/context.js';
import { SwfStack, type SwfStackProps } from '../../infra/swf-stack.js';

// biome-ignore lint/suspicious/noExplicitAny: a synthesized template, read as its JSON
type Json = Record<string, any>;
/** Synths without bundling the functions (the template is what is checked). */
const noBundling = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const synth = (props: SwfStackProps = {}) =>
  Template.fromStack(new SwfStack(noBundling(), 'OpsStack', props));
const fromContext = (values: Record<string, string>) => contextProps((name) => values[name]);
const plain = synth();
const withEmail = synth(fromContext({ alarmEmail: 'oncall@example.com' }));

const resources = (t: Template, type: string): [string, Json][] =>
  Object.entries(t.findResources(type));
const functionsOf = (t: Template) => resources(t, 'AWS::Lambda::Function');
const fn = (t: Template, prefix: string): Json => {
  const found = functionsOf(t).filter(([id]) => id.startsWith(prefix));
  if (found.length !== 1) throw new Error(`${found.length} functions named ${prefix}`);
  return (found[0] as [string, Json])[1].Properties;
};
const alarmNamed = (t: Template, prefix: string): Json => {
  const found = resources(t, 'AWS::CloudWatch::Alarm').filter(([id]) => id.startsWith(prefix));
  if (found.length !== 1) throw new Error(`${found.length} alarms named ${prefix}`);
  return (found[0] as [string, Json])[1].Properties;
};
/** The metrics an alarm watches, directly or through metric math: namespace/name. */
const metricsOf = (alarm: Json): string[] =>
  alarm.MetricName !== undefined
    ? [`${alarm.Namespace}/${alarm.MetricName}`]
    : (alarm.Metrics as Json[]).flatMap((m) =>
        m.MetricStat === undefined
          ? []
          : [`${m.MetricStat.Metric.Namespace}/${m.MetricStat.Metric.MetricName}`],
      );

/** The API's four alarms, the outbox's eight, the reconciler's two, and eight on its dependencies. */
const ALARMS = 22;

describe('alarms', () => {
  it('with a topic made for an address, every alarm notifies it when it fires and when it is OK again', () => {
    const topics = resources(withEmail, 'AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    const topic = { Ref: (topics[0] as [string, Json])[0] };
    withEmail.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: topic,
    });
    const alarms = resources(withEmail, 'AWS::CloudWatch::Alarm');
    expect(alarms).toHaveLength(ALARMS);
    for (const [id, alarm] of alarms) {
      expect(alarm.Properties.AlarmActions, id).toEqual([topic]);
      expect(alarm.Properties.OKActions, id).toEqual([topic]);
    }
  });

  it('notify a topic given as a construct or by its ARN, and nobody without one', () => {
    const app = noBundling();
    const pager = new Topic(new Stack(app, 'Pagers'), 'Pager');
    const given = Template.fromStack(new SwfStack(app, 'WithTopic', { alarmTopic: pager }));
    const givenAlarms = resources(given, 'AWS::CloudWatch::Alarm');
    expect(givenAlarms).toHaveLength(ALARMS);
    for (const [id, alarm] of givenAlarms) {
      expect(alarm.Properties.AlarmActions, id).toHaveLength(1);
      expect(alarm.Properties.OKActions, id).toEqual(alarm.Properties.AlarmActions);
    }
    const arn = 'arn:aws:sns:eu-west-1:123456789012:pager';
    const byArn = synth(fromContext({ alarmTopicArn: arn }));
    expect(resources(byArn, 'AWS::SNS::Topic')).toHaveLength(0);
    for (const [id, alarm] of resources(byArn, 'AWS::CloudWatch::Alarm')) {
      expect(alarm.Properties.AlarmActions, id).toEqual([arn]);
      expect(alarm.Properties.OKActions, id).toEqual([arn]);
    }
    for (const [, alarm] of resources(plain, 'AWS::CloudWatch::Alarm'))
      expect(alarm.Properties.AlarmActions).toBeUndefined();
  });

  it.each([
    ['AlarmsTableThrottledRequests', 'AWS/DynamoDB/ThrottledRequests'],
    ['AlarmsTableSystemErrors', 'AWS/DynamoDB/SystemErrors'],
    ['AlarmsSchedulerTargetErrors', 'AWS/Scheduler/TargetErrorCount'],
    ['AlarmsSchedulerDroppedInvocations', 'AWS/Scheduler/InvocationDroppedCount'],
    [
      'AlarmsSchedulerDeadLetterFailures',
      'AWS/Scheduler/InvocationsFailedToBeSentToDeadLetterCount',
    ],
    ['AlarmsLambdaTaskAsyncEventsDropped', 'AWS/Lambda/AsyncEventsDropped'],
    ['AlarmsAccountConcurrencyNearLimit', 'AWS/Lambda/ConcurrentExecutions'],
    ['AlarmsThrottledAnswers', 'SwfOnDynamo/ThrottledEvents'],
    ['OutboxScheduleDeadLettersAlarm', 'AWS/SQS/ApproximateNumberOfMessagesVisible'],
  ])('%s watches %s', (id, metric) => {
    expect([...new Set(metricsOf(alarmNamed(plain, id)))]).toEqual([metric]);
  });

  it("watch this table's operations, this schedule group, this function, the whole account", () => {
    const dimensions = (alarm: Json): Json[] =>
      alarm.Dimensions ??
      (alarm.Metrics as Json[]).flatMap((m) => m.MetricStat?.Metric.Dimensions ?? []);
    const throttled = dimensions(alarmNamed(plain, 'AlarmsTableThrottledRequests'));
    const operations = throttled.filter((d) => d.Name === 'Operation').map((d) => d.Value);
    expect(operations.sort()).toEqual([
      'BatchWriteItem',
      'DeleteItem',
      'GetItem',
      'PutItem',
      'Query',
      'TransactWriteItems',
      'UpdateItem',
    ]);
    expect(JSON.stringify(throttled.filter((d) => d.Name === 'TableName'))).toContain('Table');
    const dropped = dimensions(alarmNamed(plain, 'AlarmsSchedulerDroppedInvocations'));
    // The group the functions create their schedules in.
    const group = fn(plain, 'OutboxStreamHandler').Environment.Variables.SCHEDULE_GROUP;
    expect(dropped).toEqual([{ Name: 'ScheduleGroup', Value: group }]);
    const tasks = dimensions(alarmNamed(plain, 'AlarmsLambdaTaskAsyncEventsDropped'));
    expect(JSON.stringify(tasks)).toContain('OutboxLambdaTaskHandler');
    expect(alarmNamed(plain, 'AlarmsAccountConcurrencyNearLimit').Dimensions).toBeUndefined();
  });

  it("count ThrottlingException answers of both scopes in SWF's namespace, the one configured", () => {
    const answers = alarmNamed(
      synth(fromContext({ metricsNamespace: 'Team/Swf' })),
      'AlarmsThrottledAnswers',
    );
    const stats = (answers.Metrics as Json[]).filter((m) => m.MetricStat !== undefined);
    expect(stats.map((m) => m.MetricStat.Metric.Namespace)).toEqual(['Team/Swf', 'Team/Swf']);
    expect(stats.map((m) => m.MetricStat.Metric.Dimensions)).toEqual([
      [{ Name: 'ThrottlingScope', Value: 'Account' }],
      [{ Name: 'ThrottlingScope', Value: 'Workflow' }],
    ]);
    expect(answers.Threshold).toBe(10);
  });

  it('raise the concurrency alarm at the threshold configured (800 by default)', () => {
    expect(alarmNamed(plain, 'AlarmsAccountConcurrencyNearLimit').Threshold).toBe(800);
    const configured = synth(fromContext({ concurrencyAlarmThreshold: '2400' }));
    expect(alarmNamed(configured, 'AlarmsAccountConcurrencyNearLimit').Threshold).toBe(2400);
    expect(() => synth({ concurrencyAlarmThreshold: 0 })).toThrow('concurrencyAlarmThreshold');
  });
});

describe('the dashboard', () => {
  it("charts SWF's metrics in their namespace, every alarm and the service's health", () => {
    const dashboards = resources(plain, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify((dashboards[0] as [string, Json])[1].Properties.DashboardBody);
    for (const name of [
      'WorkflowsCompleted',
      'WorkflowsTimedOut',
      'ActivityTasksFailed',
      'ActivityTaskScheduleToStartTime',
      'StartedActivityTasksTimedOutOnHeartbeat',
      'DecisionTaskScheduleToStartTime',
      'PendingTasks',
      'ThrottledEvents',
      "SEARCH('{",
      'SwfOnDynamo',
      'IteratorAge',
      'ApproximateNumberOfMessagesVisible',
      'ThrottledRequests',
      'alarm',
    ])
      expect(body).toContain(name);
    // Every alarm's state is on it.
    const alarmIds = resources(plain, 'AWS::CloudWatch::Alarm').map(([id]) => id);
    for (const id of alarmIds) expect(body).toContain(id);
  });
});

describe('a way back from lost fires', () => {
  it('gives the functions that create schedules the schedules dead-letter queue', () => {
    const queues = resources(plain, 'AWS::SQS::Queue').filter(([id]) =>
      id.startsWith('OutboxScheduleDeadLetters'),
    );
    expect(queues).toHaveLength(1);
    const arn = { 'Fn::GetAtt': [(queues[0] as [string, Json])[0], 'Arn'] };
    for (const name of ['OutboxStreamHandler', 'OutboxTimerHandler', 'ReconcilerHandler'])
      expect(fn(plain, name).Environment.Variables.SCHEDULE_DEAD_LETTER_ARN, name).toEqual(arn);
    const alarm = alarmNamed(plain, 'OutboxScheduleDeadLettersAlarm');
    expect(alarm.Dimensions).toEqual([
      {
        Name: 'QueueName',
        Value: { 'Fn::GetAtt': [(queues[0] as [string, Json])[0], 'QueueName'] },
      },
    ]);
  });
});

describe('isolation and data safety', () => {
  it('reserves concurrency for the stream, timer and Lambda-task functions (defaults, or props)', () => {
    expect(fn(plain, 'OutboxStreamHandler').ReservedConcurrentExecutions).toBe(100);
    expect(fn(plain, 'OutboxTimerHandler').ReservedConcurrentExecutions).toBe(20);
    expect(fn(plain, 'OutboxLambdaTaskHandler').ReservedConcurrentExecutions).toBe(50);
    const sized = synth({ reservedConcurrency: { stream: 10, timer: 5 } });
    expect(fn(sized, 'OutboxStreamHandler').ReservedConcurrentExecutions).toBe(10);
    expect(fn(sized, 'OutboxTimerHandler').ReservedConcurrentExecutions).toBe(5);
    expect(fn(sized, 'OutboxLambdaTaskHandler').ReservedConcurrentExecutions).toBe(50);
  });

  it('reserves the API its own concurrency, and keeps waiting polls below it for other calls', () => {
    const budget = (t: Template) => {
      const api = fn(t, 'ApiHandler');
      const reserved = Number(api.ReservedConcurrentExecutions);
      const polls = Number(api.Environment.Variables.SWF_MAX_WAITING_POLLS);
      return { reserved, polls, calls: reserved - polls };
    };
    // Polls hold at most `polls` of the API's containers (leases), the function at most `reserved`
    // (Lambda): responds and starts always have the rest, and the outbox its own reservations.
    expect(budget(plain)).toEqual({ reserved: 400, polls: 300, calls: 100 });
    expect(budget(synth({ apiReservedConcurrency: 1_200 }))).toEqual({
      reserved: 1_200,
      polls: 1_100,
      calls: 100,
    });
    expect(budget(synth({ apiReservedConcurrency: 40 }))).toEqual({
      reserved: 40,
      polls: 20,
      calls: 20,
    });
    expect(budget(synth({ apiReservedConcurrency: 500, maxWaitingPolls: 450 })).calls).toBe(50);
    // The same from `-c apiReservedConcurrency=… -c maxWaitingPolls=…`.
    expect(
      budget(synth(fromContext({ apiReservedConcurrency: '600', maxWaitingPolls: '550' }))),
    ).toEqual({ reserved: 600, polls: 550, calls: 50 });
    expect(budget(synth(fromContext({ apiReservedConcurrency: '60' })))).toEqual({
      reserved: 60,
      polls: 30,
      calls: 30,
    });
    // The direct-invoke function serves no polls: it takes from the unreserved pool.
    expect(fn(plain, 'ApiDirectHandler').ReservedConcurrentExecutions).toBeUndefined();
  });

  it('refuses a poll cap that would leave other calls no concurrency', () => {
    expect(() => synth({ apiReservedConcurrency: 100, maxWaitingPolls: 95 })).toThrow(
      'maxWaitingPolls must be from 1 to 90 (reservedConcurrency 100 less 10 for other calls) (got 95)',
    );
    expect(() => synth({ maxWaitingPolls: 0 })).toThrow('maxWaitingPolls must be from 1 to 390');
    expect(() => synth({ apiReservedConcurrency: 5 })).toThrow(
      'reservedConcurrency must be a whole number of at least 11 (got 5)',
    );
  });

  it("holds the timer queue's pollers to the timer function's share", () => {
    const sqsSource = (t: Template) =>
      resources(t, 'AWS::Lambda::EventSourceMapping')
        .map(([, m]) => m.Properties)
        .filter((p) => JSON.stringify(p.EventSourceArn).includes('OutboxTimerQueue'));
    expect(sqsSource(plain)).toMatchObject([{ ScalingConfig: { MaximumConcurrency: 20 } }]);
    const sized = synth({ reservedConcurrency: { timer: 5 } });
    expect(sqsSource(sized)).toMatchObject([{ ScalingConfig: { MaximumConcurrency: 5 } }]);
  });

  it('protects the table from deletion, unless turned off', () => {
    plain.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    synth(fromContext({ tableDeletionProtection: 'off' })).hasResourceProperties(
      'AWS::DynamoDB::Table',
      { DeletionProtectionEnabled: false },
    );
  });

  it("encrypts the table with the customer's key, which the functions may use", () => {
    const arn = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const keyed = synth(fromContext({ tableKmsKeyArn: arn }));
    keyed.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: arn },
    });
    const policies = resources(keyed, 'AWS::IAM::Policy');
    for (const name of ['ApiHandler', 'OutboxStreamHandler', 'OutboxTimerHandler']) {
      const own = policies.filter(([id]) => id.startsWith(name));
      expect(JSON.stringify(own), name).toMatch(/kms:Decrypt.*1234abcd/);
    }
    expect(JSON.stringify(plain.findResources('AWS::DynamoDB::Table'))).not.toContain('KMS');
  });

  it('warms the table when asked', () => {
    synth(
      fromContext({ tableWarmWriteUnits: '40000', tableWarmReadUnits: '12000' }),
    ).hasResourceProperties('AWS::DynamoDB::Table', {
      WarmThroughput: { WriteUnitsPerSecond: 40_000, ReadUnitsPerSecond: 12_000 },
    });
    expect(JSON.stringify(plain.findResources('AWS::DynamoDB::Table'))).not.toContain('Warm');
  });

  it('logs every function of the service in JSON, and traces them with X-Ray when asked', () => {
    const service = (t: Template) =>
      functionsOf(t).filter(([id]) => !id.startsWith('LogRetention') && !id.includes('Custom'));
    expect(service(plain).length).toBeGreaterThanOrEqual(5);
    for (const [id, f] of service(plain)) {
      expect(f.Properties.LoggingConfig?.LogFormat, id).toBe('JSON');
      expect(f.Properties.TracingConfig, id).toBeUndefined();
    }
    const traced = synth(fromContext({ tracing: 'on' }));
    for (const [id, f] of service(traced))
      expect(f.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
  });

  it("tells every function of the service SWF's metrics namespace, when one is configured", () => {
    const named = synth(fromContext({ metricsNamespace: 'Team/Swf' }));
    const service = functionsOf(named).filter(([id]) => /^(Api|Outbox|Reconciler)/.test(id));
    expect(service).toHaveLength(6);
    for (const [id, f] of service)
      expect(f.Properties.Environment.Variables.SWF_METRICS_NAMESPACE, id).toBe('Team/Swf');
  });
});

describe('deploy context of operations', () => {
  it('reads the alarms, metrics, tracing and table settings', () => {
    expect(
      fromContext({
        alarmEmail: 'a@b.example',
        metricsNamespace: 'My/Swf',
        tracing: 'off',
        concurrencyAlarmThreshold: '900',
        tableDeletionProtection: 'on',
        tableWarmWriteUnits: '8000',
      }),
    ).toMatchObject({
      alarmEmail: 'a@b.example',
      metricsNamespace: 'My/Swf',
      tracing: false,
      concurrencyAlarmThreshold: 900,
      tableDeletionProtection: true,
      tableWarmThroughput: { writeUnitsPerSecond: 8000 },
    });
  });

  it.each([
    ['alarmEmail', 'not-an-address'],
    ['alarmTopicArn', 'pager'],
    ['metricsNamespace', 'has space'],
    ['tracing', 'yes'],
    ['tableKmsKeyArn', 'alias/mine'],
    ['tableDeletionProtection', 'false'],
    ['concurrencyAlarmThreshold', '0'],
    ['tableWarmWriteUnits', '1.5'],
  ])('refuses -c %s=%s before anything is built', (name, value) => {
    expect(() => fromContext({ [name]: value })).toThrow(name);
  });

  it('refuses both an address and a topic', () => {
    expect(() =>
      fromContext({
        alarmEmail: 'a@b.example',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:p',
      }),
    ).toThrow('alarmEmail and alarmTopicArn');
  });
});
