import { useState } from 'preact/hooks';
import { Field } from '../components.js';
import { useAsync } from '../hooks.js';
import {
  CLOSE_STATUSES,
  type ExecutionQuery,
  type FilterKind,
  hrefOf,
  PAGE_SIZES,
  TIME_RANGES,
  type TimeRange,
} from '../routes.js';
import { swf, type TypeRef } from '../swf.js';

const FILTER_LABELS: Record<FilterKind, string> = {
  none: 'No filter',
  workflowId: 'Workflow ID',
  type: 'Workflow type',
  tag: 'Tag',
  closeStatus: 'Close status',
};
const RANGE_LABELS: Record<TimeRange, string> = {
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  all: 'Any time',
  custom: 'Between…',
};

/**
 * SWF's filters for a listing: open or closed, one of workflow ID, type, tag or close status (SWF
 * takes one at a time), and a time range on the start (or, for closed ones, the close). Applying
 * them changes the URL, so a filtered listing can be linked to.
 */
export function ExecutionFilters(props: { domain: string; query: ExecutionQuery }) {
  const [draft, setDraft] = useState(props.query);
  const set = <K extends keyof ExecutionQuery>(key: K, value: ExecutionQuery[K]) =>
    setDraft({ ...draft, [key]: value });
  const types = useAsync(
    (signal) =>
      swf<{ typeInfos?: { workflowType: TypeRef }[] }>(
        'ListWorkflowTypes',
        { domain: props.domain, registrationStatus: 'REGISTERED', maximumPageSize: 100 },
        signal,
      ),
    [props.domain],
  );
  const apply = (event: Event) => {
    event.preventDefault();
    const closeStatusOnOpen = draft.status === 'open' && draft.filter === 'closeStatus';
    location.hash = hrefOf({
      view: 'executions',
      domain: props.domain,
      query: closeStatusOnOpen ? { ...draft, filter: 'none' } : draft,
    });
  };
  const kinds = (Object.keys(FILTER_LABELS) as FilterKind[]).filter(
    (kind) => kind !== 'closeStatus' || draft.status === 'closed',
  );
  return (
    <form class="filters" onSubmit={apply} aria-label="Filter executions">
      <fieldset class="status-choice">
        <legend>Status</legend>
        {(['open', 'closed'] as const).map((status) => (
          <label key={status} class="inline">
            <input
              type="radio"
              name="status"
              value={status}
              checked={draft.status === status}
              onChange={() => set('status', status)}
            />{' '}
            {status === 'open' ? 'Open' : 'Closed'}
          </label>
        ))}
      </fieldset>
      <Field label="Filter by">
        <select
          value={draft.filter}
          onChange={(e) => set('filter', e.currentTarget.value as FilterKind)}
        >
          {kinds.map((kind) => (
            <option key={kind} value={kind}>
              {FILTER_LABELS[kind]}
            </option>
          ))}
        </select>
      </Field>
      <FilterValue
        draft={draft}
        set={set}
        types={types.value?.typeInfos?.map((t) => t.workflowType) ?? []}
      />
      {draft.status === 'closed' ? (
        <Field label="Time of">
          <select
            value={draft.timeField}
            onChange={(e) =>
              set('timeField', e.currentTarget.value === 'close' ? 'close' : 'start')
            }
          >
            <option value="start">Start</option>
            <option value="close">Close</option>
          </select>
        </Field>
      ) : null}
      <Field
        label={draft.status === 'closed' && draft.timeField === 'close' ? 'Closed' : 'Started'}
      >
        <select
          value={draft.range}
          onChange={(e) => set('range', e.currentTarget.value as TimeRange)}
        >
          {TIME_RANGES.map((range) => (
            <option key={range} value={range}>
              {RANGE_LABELS[range]}
            </option>
          ))}
        </select>
      </Field>
      {draft.range === 'custom' ? (
        <>
          <Field label="From">
            <input
              type="datetime-local"
              step="1"
              value={draft.from}
              onInput={(e) => set('from', e.currentTarget.value)}
            />
          </Field>
          <Field label="To">
            <input
              type="datetime-local"
              step="1"
              value={draft.to}
              onInput={(e) => set('to', e.currentTarget.value)}
            />
          </Field>
        </>
      ) : null}
      <Field label="Order">
        <select
          value={draft.oldestFirst ? 'oldest' : 'newest'}
          onChange={(e) => set('oldestFirst', e.currentTarget.value === 'oldest')}
        >
          <option value="newest">Newest first</option>
          <option value="oldest">Oldest first</option>
        </select>
      </Field>
      <Field label="Per page">
        <select
          value={String(draft.size)}
          onChange={(e) => set('size', Number(e.currentTarget.value))}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={String(size)}>
              {size}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit">Apply</button>
    </form>
  );
}

function FilterValue(props: {
  draft: ExecutionQuery;
  set: <K extends keyof ExecutionQuery>(key: K, value: ExecutionQuery[K]) => void;
  types: readonly TypeRef[];
}) {
  const { draft, set } = props;
  switch (draft.filter) {
    case 'none':
      return null;
    case 'closeStatus':
      return (
        <Field label="Close status">
          <select value={draft.value} onChange={(e) => set('value', e.currentTarget.value)}>
            <option value="">Choose…</option>
            {CLOSE_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </Field>
      );
    case 'type':
      return (
        <>
          <Field label="Type name">
            <input
              list="workflow-type-names"
              value={draft.value}
              onInput={(e) => set('value', e.currentTarget.value)}
            />
            <datalist id="workflow-type-names">
              {[...new Set(props.types.map((t) => t.name))].map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
          </Field>
          <Field label="Version (optional)">
            <input
              value={draft.version}
              onInput={(e) => set('version', e.currentTarget.value)}
              size={6}
            />
          </Field>
        </>
      );
    case 'workflowId':
    case 'tag':
      return (
        <Field label={draft.filter === 'tag' ? 'Tag' : 'Workflow ID'}>
          <input value={draft.value} onInput={(e) => set('value', e.currentTarget.value)} />
        </Field>
      );
  }
}
