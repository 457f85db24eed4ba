import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorBox, Loading, StatusBadge, TabLinks } from '../components.js';
import { useHistory } from '../history-loader.js';
import { historyModel } from '../history-model.js';
import { useAsync, useInterval } from '../hooks.js';
import { EXECUTION_TABS, type ExecutionTab, executionHref, hrefOf } from '../routes.js';
import { type ExecutionInfo, type ExecutionRef, swf } from '../swf.js';
import { ActionDialog, type ActionKind } from './actions.js';
import { HistoryTable } from './history.js';
import { Summary } from './summary.js';
import { Timeline } from './timeline.js';

const LIVE_MS = 2500;
const TAB_LABELS: Record<ExecutionTab, string> = {
  summary: 'Summary',
  history: 'History',
  timeline: 'Timeline',
};

export interface Description {
  readonly executionInfo: ExecutionInfo;
  readonly executionConfiguration: Record<string, unknown>;
  readonly openCounts: Record<string, number>;
  readonly latestActivityTaskTimestamp?: number;
  readonly latestExecutionContext?: string;
}

/** One execution: its summary, history and timeline, and what can be done to it. Live while open. */
export function ExecutionView(props: {
  domain: string;
  execution: ExecutionRef;
  tab: ExecutionTab;
  event?: number;
}) {
  const { domain, execution } = props;
  const described = useAsync(
    (signal) => swf<Description>('DescribeWorkflowExecution', { domain, execution }, signal),
    [domain, execution.workflowId, execution.runId],
  );
  const history = useHistory(domain, execution);
  const model = useMemo(() => historyModel(history.events), [history.events]);
  const open = described.value?.executionInfo.executionStatus === 'OPEN';
  const [action, setAction] = useState<ActionKind | undefined>();
  const refresh = () => {
    described.reload();
    void history.refresh();
  };
  useInterval(refresh, LIVE_MS, open);
  // The run closed while shown: read the events that closed it.
  useEffect(() => {
    if (described.value !== undefined && !open) void history.refresh();
  }, [open]);
  const info = described.value?.executionInfo;
  return (
    <section class="execution">
      <div class="heading">
        <div>
          <h1>
            {execution.workflowId}{' '}
            {info === undefined ? null : (
              <StatusBadge status={info.closeStatus ?? info.executionStatus} />
            )}
            {info?.cancelRequested === true && open ? (
              <span class="badge tone-muted">cancel requested</span>
            ) : null}
          </h1>
          <p class="subtitle mono">run {execution.runId}</p>
        </div>
        <ExecutionActions
          domain={domain}
          execution={execution}
          open={open}
          known={info !== undefined}
          onAction={setAction}
        />
      </div>
      {described.error === undefined ? null : (
        <ErrorBox error={described.error} onRetry={described.reload} />
      )}
      <TabLinks
        label="Execution views"
        current={props.tab}
        tabs={EXECUTION_TABS.map((tab) => ({
          id: tab,
          label: TAB_LABELS[tab],
          href: executionHref(domain, execution, tab),
        }))}
      />
      {history.error === undefined ? null : <ErrorBox error={history.error} />}
      <p
        class="load-state muted"
        aria-live="polite"
        data-complete={history.complete ? 'true' : 'false'}
      >
        {history.complete
          ? `${history.events.length.toLocaleString('en-US')} events${open ? ', live' : ''}`
          : `Reading the history: ${history.events.length.toLocaleString('en-US')} events so far…`}
      </p>
      <TabBody {...props} described={described.value} history={history} model={model} />
      {action === undefined || info === undefined ? null : (
        <ActionDialog
          kind={action}
          domain={domain}
          execution={execution}
          onClose={() => setAction(undefined)}
          onDone={() => {
            setAction(undefined);
            refresh();
          }}
        />
      )}
    </section>
  );
}

function TabBody(props: {
  domain: string;
  execution: ExecutionRef;
  tab: ExecutionTab;
  event?: number;
  described: Description | undefined;
  history: ReturnType<typeof useHistory>;
  model: ReturnType<typeof historyModel>;
}) {
  const { domain, execution, history, model } = props;
  switch (props.tab) {
    case 'summary':
      return props.described === undefined ? (
        <Loading what="the execution" />
      ) : (
        <Summary
          domain={domain}
          description={props.described}
          model={model}
          complete={history.complete}
        />
      );
    case 'history':
      return (
        <HistoryTable
          domain={domain}
          execution={execution}
          events={history.events}
          {...(props.event === undefined ? {} : { selected: props.event })}
        />
      );
    case 'timeline':
      return (
        <Timeline domain={domain} execution={execution} model={model} complete={history.complete} />
      );
  }
}

function ExecutionActions(props: {
  domain: string;
  execution: ExecutionRef;
  open: boolean;
  known: boolean;
  onAction: (kind: ActionKind) => void;
}) {
  if (!props.known) return null;
  const again = hrefOf({ view: 'start', domain: props.domain, from: props.execution });
  return (
    <div class="buttons">
      {props.open ? (
        <>
          <button type="button" onClick={() => props.onAction('signal')}>
            Signal
          </button>
          <button type="button" class="secondary" onClick={() => props.onAction('cancel')}>
            Request cancel
          </button>
          <button type="button" class="danger" onClick={() => props.onAction('terminate')}>
            Terminate
          </button>
        </>
      ) : null}
      <a class="button secondary" href={again}>
        Start again
      </a>
    </div>
  );
}
