import { useState } from 'preact/hooks';
import { ErrorBox, Facts, Loading, StatusBadge, TabLinks } from '../components.js';
import { formatTime, formatTimeout } from '../format.js';
import { useAsync } from '../hooks.js';
import { hrefOf, type RegistrationStatus } from '../routes.js';
import { type Epoch, firstPages, swf, type TypeRef } from '../swf.js';

interface TypeInfo {
  readonly workflowType?: TypeRef;
  readonly activityType?: TypeRef;
  readonly status: RegistrationStatus;
  readonly description?: string;
  readonly creationDate: Epoch;
  readonly deprecationDate?: Epoch;
}

type Kind = 'workflow' | 'activity';

/** A domain's workflow and activity types, each with its defaults (Describe*Type) on demand. */
export function TypesView(props: { domain: string; status: RegistrationStatus }) {
  return (
    <section>
      <h1>Types in {props.domain}</h1>
      <TabLinks
        label="Registration status"
        current={props.status}
        tabs={(['REGISTERED', 'DEPRECATED'] as const).map((status) => ({
          id: status,
          label: status === 'REGISTERED' ? 'Registered' : 'Deprecated',
          href: hrefOf({ view: 'types', domain: props.domain, status }),
        }))}
      />
      <TypeList kind="workflow" domain={props.domain} status={props.status} />
      <TypeList kind="activity" domain={props.domain} status={props.status} />
    </section>
  );
}

function TypeList(props: { kind: Kind; domain: string; status: RegistrationStatus }) {
  const [pages, setPages] = useState(1);
  const action = props.kind === 'workflow' ? 'ListWorkflowTypes' : 'ListActivityTypes';
  const list = useAsync(
    (signal) =>
      firstPages<TypeInfo>(
        action,
        { domain: props.domain, registrationStatus: props.status, maximumPageSize: 100 },
        'typeInfos',
        pages,
        signal,
      ),
    [props.domain, props.status, pages],
  );
  const title = props.kind === 'workflow' ? 'Workflow types' : 'Activity types';
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {list.error === undefined ? null : <ErrorBox error={list.error} onRetry={list.reload} />}
      {list.value === undefined ? (
        list.error === undefined ? (
          <Loading what={title.toLowerCase()} />
        ) : null
      ) : list.value.items.length === 0 ? (
        <p class="empty">None.</p>
      ) : (
        <ul class="types">
          {list.value.items.map((info) => (
            <TypeItem key={typeKey(info)} kind={props.kind} domain={props.domain} info={info} />
          ))}
        </ul>
      )}
      {list.value?.more === true ? (
        <button type="button" class="secondary" onClick={() => setPages(pages + 1)}>
          More {title.toLowerCase()}
        </button>
      ) : null}
    </section>
  );
}

const typeOf = (info: TypeInfo): TypeRef =>
  info.workflowType ?? info.activityType ?? { name: '', version: '' };
const typeKey = (info: TypeInfo) => `${typeOf(info).name}\u0000${typeOf(info).version}`;

function TypeItem(props: { kind: Kind; domain: string; info: TypeInfo }) {
  const [open, setOpen] = useState(false);
  const type = typeOf(props.info);
  return (
    <li class="type">
      <details onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>
          <span class="type-name">{type.name}</span> <span class="version">v{type.version}</span>{' '}
          <StatusBadge status={props.info.status} />{' '}
          <span class="muted">{props.info.description ?? ''}</span>
        </summary>
        {open ? (
          <TypeDefaults kind={props.kind} domain={props.domain} type={type} info={props.info} />
        ) : null}
      </details>
      {props.kind === 'workflow' && props.info.status === 'REGISTERED' ? (
        <a class="button small" href={hrefOf({ view: 'start', domain: props.domain, type })}>
          Start
        </a>
      ) : null}
    </li>
  );
}

function TypeDefaults(props: { kind: Kind; domain: string; type: TypeRef; info: TypeInfo }) {
  const described = useAsync(
    (signal) =>
      swf<{ configuration?: Record<string, unknown> }>(
        props.kind === 'workflow' ? 'DescribeWorkflowType' : 'DescribeActivityType',
        {
          domain: props.domain,
          [props.kind === 'workflow' ? 'workflowType' : 'activityType']: props.type,
        },
        signal,
      ),
    [props.kind, props.domain, props.type.name, props.type.version],
  );
  if (described.error !== undefined)
    return <ErrorBox error={described.error} onRetry={described.reload} />;
  const c = described.value?.configuration;
  if (c === undefined) return <Loading what="defaults" />;
  const list = (c.defaultTaskList as { name?: string } | undefined)?.name;
  return (
    <Facts
      rows={[
        ['Registered', formatTime(props.info.creationDate)],
        ['Deprecated', formatTime(props.info.deprecationDate)],
        ['Default task list', list ?? '—'],
        ['Default task priority', String(c.defaultTaskPriority ?? '—')],
        ...(props.kind === 'workflow'
          ? ([
              ['Execution start-to-close', formatTimeout(c.defaultExecutionStartToCloseTimeout)],
              ['Decision task start-to-close', formatTimeout(c.defaultTaskStartToCloseTimeout)],
              ['Child policy', String(c.defaultChildPolicy ?? '—')],
              ['Lambda role', String(c.defaultLambdaRole ?? '—')],
            ] as [string, string][])
          : ([
              ['Schedule-to-start', formatTimeout(c.defaultTaskScheduleToStartTimeout)],
              ['Start-to-close', formatTimeout(c.defaultTaskStartToCloseTimeout)],
              ['Schedule-to-close', formatTimeout(c.defaultTaskScheduleToCloseTimeout)],
              ['Heartbeat', formatTimeout(c.defaultTaskHeartbeatTimeout)],
            ] as [string, string][])),
      ]}
    />
  );
}
