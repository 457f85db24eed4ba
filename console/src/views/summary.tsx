import { Facts, Payload } from '../components.js';
import { formatDuration, formatTime, formatTimeout } from '../format.js';
import { childSpans, type HistoryModel, pendingSpans, type Span } from '../history-model.js';
import { executionHref } from '../routes.js';
import { attributesOf } from '../swf.js';
import type { Description } from './execution.js';

/** The run at a glance: status, type, times, timeouts, its parent, children and runs, what is pending. */
export function Summary(props: {
  domain: string;
  description: Description;
  model: HistoryModel;
  complete: boolean;
}) {
  const { domain, description, model } = props;
  const info = description.executionInfo;
  const config = description.executionConfiguration;
  const runLink = (runId: string | undefined) =>
    runId === undefined ? undefined : (
      <a href={executionHref(domain, { workflowId: info.execution.workflowId, runId })}>{runId}</a>
    );
  const closeAttributes =
    model.closeEvent === undefined ? undefined : attributesOf(model.closeEvent);
  const ended = info.closeTimestamp ?? Date.now() / 1000;
  return (
    <div class="summary">
      <section aria-label="Execution">
        <Facts
          rows={[
            ['Type', `${info.workflowType.name} v${info.workflowType.version}`],
            ['Status', info.closeStatus ?? info.executionStatus],
            ['Started', formatTime(info.startTimestamp)],
            ['Closed', formatTime(info.closeTimestamp)],
            ['Duration', formatDuration((ended - info.startTimestamp) * 1000)],
            [
              'Tags',
              (info.tagList ?? []).map((tag) => (
                <span key={tag} class="tag">
                  {tag}
                </span>
              )),
            ],
            [
              'Parent',
              info.parent === undefined ? undefined : (
                <a href={executionHref(domain, info.parent)}>{info.parent.workflowId}</a>
              ),
            ],
            ['Continued from', runLink(model.previousRunId)],
            ['Continued as', runLink(model.nextRunId)],
            ['Cancel requested', info.cancelRequested === true ? 'yes' : undefined],
          ]}
        />
        <Facts
          rows={[
            ['Task list', (config.taskList as { name?: string } | undefined)?.name],
            ['Task priority', config.taskPriority as string | undefined],
            ['Execution timeout', formatTimeout(config.executionStartToCloseTimeout)],
            ['Decision task timeout', formatTimeout(config.taskStartToCloseTimeout)],
            ['Child policy', config.childPolicy as string | undefined],
            ['Lambda role', config.lambdaRole as string | undefined],
            ['Last activity task', formatTime(description.latestActivityTaskTimestamp)],
          ]}
        />
      </section>
      <section aria-label="Input and outcome" class="payloads">
        <h2>Input</h2>
        <Payload text={model.input} label="Input" />
        {closeAttributes === undefined ? null : (
          <Outcome type={model.closeEvent?.eventType ?? ''} attributes={closeAttributes} />
        )}
        {description.latestExecutionContext === undefined ? null : (
          <>
            <h2>Latest execution context</h2>
            <Payload text={description.latestExecutionContext} label="Latest execution context" />
          </>
        )}
      </section>
      <Pending model={model} counts={description.openCounts} complete={props.complete} />
      <Children domain={domain} spans={childSpans(model)} />
    </div>
  );
}

function Outcome(props: { type: string; attributes: Record<string, unknown> }) {
  const a = props.attributes;
  const text = (key: string) => (typeof a[key] === 'string' ? (a[key] as string) : undefined);
  return (
    <>
      <h2>Outcome: {props.type.replace(/^WorkflowExecution/, '')}</h2>
      <Facts
        rows={[
          ['Reason', text('reason')],
          ['Cause', text('cause')],
        ]}
      />
      {(text('result') ?? text('details') ?? text('input')) ? (
        <Payload text={text('result') ?? text('details') ?? text('input')} label="Outcome" />
      ) : null}
    </>
  );
}

const KIND_NAMES: Record<Span['kind'], string> = {
  activity: 'Activity task',
  timer: 'Timer',
  child: 'Child',
  lambda: 'Lambda task',
  decision: 'Decision task',
};

function Pending(props: {
  model: HistoryModel;
  counts: Record<string, number>;
  complete: boolean;
}) {
  const spans = pendingSpans(props.model);
  const c = props.counts;
  return (
    <section aria-label="Pending">
      <h2>Pending</h2>
      <p class="muted">
        {c.openActivityTasks ?? 0} activity tasks, {c.openDecisionTasks ?? 0} decision tasks,{' '}
        {c.openTimers ?? 0} timers, {c.openChildWorkflowExecutions ?? 0} children,{' '}
        {c.openLambdaFunctions ?? 0} Lambda tasks open
      </p>
      {spans.length === 0 ? null : (
        <table class="list compact">
          <caption class="visually-hidden">Pending tasks</caption>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">What</th>
              <th scope="col">State</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {spans.map((span) => (
              <tr key={span.firstEventId}>
                <td>{KIND_NAMES[span.kind]}</td>
                <td>{span.label}</td>
                <td>
                  {span.startedAt === undefined ? 'scheduled' : 'started'}
                  {span.cancelRequestedAt === undefined ? '' : ', cancel requested'}
                </td>
                <td class="time">{formatTime((span.startedAt ?? span.scheduledAt) / 1000)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.complete ? null : <p class="muted">(the history is still being read)</p>}
    </section>
  );
}

function Children(props: { domain: string; spans: readonly Span[] }) {
  if (props.spans.length === 0) return null;
  return (
    <section aria-label="Children">
      <h2>Children</h2>
      <ul class="children">
        {props.spans.map((span) => (
          <li key={span.firstEventId}>
            {span.child === undefined ? (
              span.label
            ) : (
              <a href={executionHref(props.domain, span.child)}>{span.label}</a>
            )}{' '}
            — {span.outcomeText}
          </li>
        ))}
      </ul>
    </section>
  );
}
