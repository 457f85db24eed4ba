import { Duration } from 'aws-cdk-lib';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  type IWidget,
  MathExpression,
  type Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface SwfDashboardProps {
  readonly metricsNamespace: string;
  /** Every alarm of the service, shown by state. */
  readonly alarms: readonly Alarm[];
  /** The service's functions by a short name (the graphs' legends). */
  readonly functions: Readonly<Record<string, IFunction>>;
  readonly deadLetterQueues: Readonly<Record<string, IQueue>>;
  readonly streamHandler: IFunction;
  /** DynamoDB's throttled requests and system errors of the table (each its own graph). */
  readonly tableErrors: Readonly<Record<string, IMetric>>;
}

const WORKFLOW = 'Domain,WorkflowTypeName,WorkflowTypeVersion';
const ACTIVITY = 'Domain,ActivityTypeName,ActivityTypeVersion';

/** The graphs of SWF's metrics: title, metric names, their dimensions, the statistic. */
const SWF_GRAPHS: readonly (readonly [string, string, string, string])[] = [
  [
    'Workflows closed',
    'WorkflowsCompleted WorkflowsFailed WorkflowsTimedOut WorkflowsCanceled WorkflowsTerminated WorkflowsContinuedAsNew',
    WORKFLOW,
    'Sum',
  ],
  [
    'Activity tasks closed',
    'ActivityTasksCompleted ActivityTasksFailed ActivityTasksCanceled',
    ACTIVITY,
    'Sum',
  ],
  [
    'Activity tasks timed out',
    'ScheduledActivityTasksTimedOutOnStart ScheduledActivityTasksTimedOutOnClose StartedActivityTasksTimedOutOnClose StartedActivityTasksTimedOutOnHeartbeat',
    ACTIVITY,
    'Sum',
  ],
  ['Decision tasks', 'DecisionTasksCompleted StartedDecisionTasksTimedOutOnClose', WORKFLOW, 'Sum'],
  ['Activity schedule-to-start (p90, ms)', 'ActivityTaskScheduleToStartTime', ACTIVITY, 'p90'],
  ['Activity start-to-close (p90, ms)', 'ActivityTaskStartToCloseTime', ACTIVITY, 'p90'],
  ['Decision schedule-to-start (p90, ms)', 'DecisionTaskScheduleToStartTime', WORKFLOW, 'p90'],
  ['Workflow start-to-close (p90, ms)', 'WorkflowStartToCloseTime', WORKFLOW, 'p90'],
  ['Pending tasks', 'PendingTasks', 'Domain,TaskListName,TaskListClassification', 'Maximum'],
  ['Throttled answers', 'ThrottledEvents', 'APIName,ThrottlingScope', 'Sum'],
];

/**
 * One CloudWatch dashboard: SWF's metrics (outcomes, timeouts, task times by type, pending tasks,
 * throttled answers) over every domain and type, then the service's health (every alarm, the
 * functions' errors and throttles, the outbox's lag, the dead-letter queues, the table).
 */
export class SwfDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: SwfDashboardProps) {
    super(scope, id);
    const ns = props.metricsNamespace;
    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# SWF service\nSWF's metrics in \`${ns}\` (docs/operations.md defines each), then the service's health.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      ...SWF_GRAPHS.map(([title, names, dimensions, statistic]) =>
        searchGraph(ns, title, names, dimensions, statistic),
      ),
    );
    this.dashboard.addWidgets(
      new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24, height: 4 }),
    );
    this.dashboard.addWidgets(...healthWidgets(props));
  }
}

function healthWidgets(props: SwfDashboardProps): IWidget[] {
  const perMinute = { period: Duration.minutes(1), statistic: 'Sum' };
  const byFunction = (metric: (fn: IFunction) => Metric) =>
    Object.entries(props.functions).map(([name, fn]) =>
      metric(fn).with({ ...perMinute, label: name }),
    );
  return [
    graph(
      'Function errors',
      byFunction((fn) => fn.metricErrors()),
    ),
    graph(
      'Function throttles',
      byFunction((fn) => fn.metricThrottles()),
    ),
    graph(
      'Function invocations',
      byFunction((fn) => fn.metricInvocations()),
    ),
    graph('Outbox lag (stream iterator age, ms)', [
      props.streamHandler.metric('IteratorAge', {
        statistic: 'Maximum',
        period: Duration.minutes(1),
      }),
    ]),
    graph(
      'Dead-letter queues (messages)',
      Object.entries(props.deadLetterQueues).map(([name, queue]) =>
        queue.metricApproximateNumberOfMessagesVisible({
          statistic: 'Maximum',
          period: Duration.minutes(1),
          label: name,
        }),
      ),
    ),
    // One graph each: their expressions' metrics share ids (one per operation).
    ...Object.entries(props.tableErrors).map(([title, metric]) => graph(title, [metric])),
  ];
}

const graph = (title: string, left: IMetric[]) =>
  new GraphWidget({ title, left, width: 8, height: 6 });

/** A graph of every series of some of SWF's metrics, whatever their dimensions' values. */
function searchGraph(
  namespace: string,
  title: string,
  names: string,
  dimensions: string,
  statistic: string,
): GraphWidget {
  const nameFilter = names
    .split(' ')
    .map((n) => `MetricName="${n}"`)
    .join(' OR ');
  return graph(title, [
    new MathExpression({
      expression: `SEARCH('{"${namespace}",${dimensions}} (${nameFilter})', '${statistic}', 300)`,
      usingMetrics: {},
      label: '',
      period: Duration.minutes(5),
    }),
  ]);
}
