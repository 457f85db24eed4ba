import { useState } from 'preact/hooks';
import { ErrorBox, Loading, StatusBadge } from '../components.js';
import { formatTime } from '../format.js';
import { useAsync, useInterval } from '../hooks.js';
import { listingRequests } from '../queries.js';
import { type ExecutionQuery, executionHref, hrefOf } from '../routes.js';
import { type ExecutionInfo, swf } from '../swf.js';
import { ExecutionFilters } from './filters.js';

const LIVE_MS = 5000;

/**
 * A domain's executions: one page at a time (SWF's page tokens, never the whole list), their count,
 * and every filter SWF takes. Open executions refresh as they change.
 */
export function ExecutionsView(props: { domain: string; query: ExecutionQuery }) {
  const { domain, query } = props;
  // Page i is read with tokens[i]; Next adds the token the last page gave.
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const [live, setLive] = useState(true);
  const page = tokens.length - 1;
  const list = useAsync(
    async (signal) => {
      const { list } = listingRequests(domain, query, Date.now() / 1000, tokens[page]);
      return swf<{ executionInfos?: ExecutionInfo[]; nextPageToken?: string }>(
        list.action,
        list.input,
        signal,
      );
    },
    [domain, query, page],
  );
  const count = useAsync(
    async (signal) => {
      const { count } = listingRequests(domain, query, Date.now() / 1000);
      return swf<{ count: number; truncated?: boolean }>(count.action, count.input, signal);
    },
    [domain, query],
  );
  const refreshing = live && query.status === 'open' && page === 0;
  useInterval(
    () => {
      list.reload();
      count.reload();
    },
    LIVE_MS,
    refreshing,
  );
  const next = list.value?.nextPageToken;
  return (
    <section>
      <div class="heading">
        <h1>Executions in {domain}</h1>
        <div class="buttons">
          <a
            class="button secondary"
            href={hrefOf({ view: 'types', domain, status: 'REGISTERED' })}
          >
            Types
          </a>
          <a class="button" href={hrefOf({ view: 'start', domain })}>
            Start an execution
          </a>
        </div>
      </div>
      <ExecutionFilters domain={domain} query={query} />
      <div class="list-bar">
        <CountText count={count.value} error={count.error} status={query.status} />
        {query.status === 'open' ? (
          <label class="inline">
            <input
              type="checkbox"
              checked={live}
              onChange={(e) => setLive(e.currentTarget.checked)}
            />{' '}
            Live
            {refreshing ? <span class="live-dot" title="Refreshing every 5 seconds" /> : null}
          </label>
        ) : null}
      </div>
      {list.error === undefined ? null : <ErrorBox error={list.error} onRetry={list.reload} />}
      {list.value === undefined ? (
        list.error === undefined ? (
          <Loading what="executions" />
        ) : null
      ) : (
        <ExecutionTable
          domain={domain}
          infos={list.value.executionInfos ?? []}
          closed={query.status === 'closed'}
        />
      )}
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          class="secondary"
          disabled={page === 0}
          onClick={() => setTokens(tokens.slice(0, -1))}
        >
          ← Previous
        </button>
        <span>Page {page + 1}</span>
        <button
          type="button"
          class="secondary"
          disabled={next === undefined}
          onClick={() => setTokens([...tokens, next])}
        >
          Next →
        </button>
      </nav>
    </section>
  );
}

function CountText(props: {
  count: { count: number; truncated?: boolean } | undefined;
  error: unknown;
  status: string;
}) {
  if (props.error !== undefined) return <span class="count muted">Count unavailable</span>;
  if (props.count === undefined) return <span class="count muted">Counting…</span>;
  const { count, truncated } = props.count;
  return (
    <span class="count" aria-live="polite">
      {truncated === true ? 'At least ' : ''}
      {count.toLocaleString('en-US')} {props.status} execution{count === 1 ? '' : 's'}
    </span>
  );
}

function ExecutionTable(props: {
  domain: string;
  infos: readonly ExecutionInfo[];
  closed: boolean;
}) {
  if (props.infos.length === 0) return <p class="empty">No executions match.</p>;
  return (
    <table class="list executions">
      <caption class="visually-hidden">Executions</caption>
      <thead>
        <tr>
          <th scope="col">Workflow ID</th>
          <th scope="col">Run ID</th>
          <th scope="col">Type</th>
          <th scope="col">Started</th>
          {props.closed ? <th scope="col">Closed</th> : null}
          <th scope="col">Status</th>
          <th scope="col">Tags</th>
        </tr>
      </thead>
      <tbody>
        {props.infos.map((info) => (
          <tr key={info.execution.runId}>
            <td>
              <a href={executionHref(props.domain, info.execution)}>{info.execution.workflowId}</a>
            </td>
            <td class="mono" title={info.execution.runId}>
              {info.execution.runId.slice(0, 10)}…
            </td>
            <td>
              {info.workflowType.name} <span class="version">v{info.workflowType.version}</span>
            </td>
            <td class="time">{formatTime(info.startTimestamp)}</td>
            {props.closed ? <td class="time">{formatTime(info.closeTimestamp)}</td> : null}
            <td>
              <StatusBadge status={info.closeStatus ?? info.executionStatus} />
              {info.cancelRequested === true && info.executionStatus === 'OPEN' ? (
                <span class="badge tone-muted">cancel requested</span>
              ) : null}
            </td>
            <td>
              {(info.tagList ?? []).map((tag) => (
                <span key={tag} class="tag">
                  {tag}
                </span>
              ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
