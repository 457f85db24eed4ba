import { useState } from 'preact/hooks';
import { ErrorBox, Field, Loading, Modal, StatusBadge, TabLinks } from '../components.js';
import { useAction, useAsync } from '../hooks.js';
import { DEFAULT_QUERY, hrefOf, type RegistrationStatus } from '../routes.js';
import { firstPages, swf } from '../swf.js';

interface DomainInfo {
  readonly name: string;
  readonly status: RegistrationStatus;
  readonly description?: string;
}

const PAGE = 100;

/** Domains, registered or deprecated, a page at a time; register, deprecate, undeprecate. */
export function DomainsView(props: { status: RegistrationStatus }) {
  const [pages, setPages] = useState<string[]>([]);
  const list = useAsync(
    (signal) =>
      firstPages<DomainInfo>(
        'ListDomains',
        { registrationStatus: props.status, maximumPageSize: PAGE },
        'domainInfos',
        pages.length + 1,
        signal,
      ),
    [props.status, pages.length],
  );
  const [dialog, setDialog] = useState<'register' | { deprecate: string } | undefined>();
  const action = useAction();
  const closed = () => {
    setDialog(undefined);
    list.reload();
  };
  const undeprecate = (name: string) =>
    action.run(() => swf('UndeprecateDomain', { name })).then((ok) => ok && list.reload());
  return (
    <section>
      <div class="heading">
        <h1>Domains</h1>
        <button type="button" onClick={() => setDialog('register')}>
          Register a domain
        </button>
      </div>
      <TabLinks
        label="Registration status"
        current={props.status}
        tabs={(['REGISTERED', 'DEPRECATED'] as const).map((status) => ({
          id: status,
          label: status === 'REGISTERED' ? 'Registered' : 'Deprecated',
          href: hrefOf({ view: 'domains', status }),
        }))}
      />
      {action.error === undefined ? null : <ErrorBox error={action.error} />}
      {list.error === undefined ? null : <ErrorBox error={list.error} onRetry={list.reload} />}
      {list.value === undefined ? (
        list.error === undefined ? (
          <Loading what="domains" />
        ) : null
      ) : (
        <DomainTable
          domains={list.value.items}
          onDeprecate={(name) => setDialog({ deprecate: name })}
          onUndeprecate={undeprecate}
        />
      )}
      {list.value?.more === true ? (
        <button type="button" class="secondary" onClick={() => setPages([...pages, ''])}>
          More domains
        </button>
      ) : null}
      {dialog === 'register' ? <RegisterDomain onDone={closed} /> : null}
      {typeof dialog === 'object' ? (
        <DeprecateDomain name={dialog.deprecate} onDone={closed} />
      ) : null}
    </section>
  );
}

function DomainTable(props: {
  domains: readonly DomainInfo[];
  onDeprecate: (name: string) => void;
  onUndeprecate: (name: string) => void;
}) {
  if (props.domains.length === 0) return <p class="empty">No domains here.</p>;
  return (
    <table class="list">
      <caption class="visually-hidden">Domains</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Status</th>
          <th scope="col">Description</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.domains.map((domain) => (
          <tr key={domain.name}>
            <td>
              <a href={hrefOf({ view: 'executions', domain: domain.name, query: DEFAULT_QUERY })}>
                {domain.name}
              </a>
            </td>
            <td>
              <StatusBadge status={domain.status} />
            </td>
            <td>{domain.description ?? ''}</td>
            <td class="row-actions">
              <a href={hrefOf({ view: 'types', domain: domain.name, status: 'REGISTERED' })}>
                Types
              </a>
              {domain.status === 'REGISTERED' ? (
                <button
                  type="button"
                  class="link danger"
                  onClick={() => props.onDeprecate(domain.name)}
                  aria-label={`Deprecate ${domain.name}`}
                >
                  Deprecate
                </button>
              ) : (
                <button
                  type="button"
                  class="link"
                  onClick={() => props.onUndeprecate(domain.name)}
                  aria-label={`Undeprecate ${domain.name}`}
                >
                  Undeprecate
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RegisterDomain(props: { onDone: () => void }) {
  const [name, setName] = useState('');
  const [retention, setRetention] = useState('30');
  const [description, setDescription] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const input = {
      name,
      workflowExecutionRetentionPeriodInDays: retention,
      ...(description === '' ? {} : { description }),
    };
    void action.run(() => swf('RegisterDomain', input)).then((ok) => ok && props.onDone());
  };
  return (
    <Modal title="Register a domain" onClose={props.onDone}>
      <form onSubmit={submit}>
        <Field label="Name">
          <input
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            maxLength={256}
          />
        </Field>
        <Field label="Retention of closed executions (days)" hint="0 to 90, or NONE">
          <input required value={retention} onInput={(e) => setRetention(e.currentTarget.value)} />
        </Field>
        <Field label="Description">
          <input
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
            maxLength={1024}
          />
        </Field>
        {action.error === undefined ? null : <ErrorBox error={action.error} />}
        <div class="buttons">
          <button type="submit" disabled={action.busy}>
            Register
          </button>
          <button type="button" class="secondary" onClick={props.onDone}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}

function DeprecateDomain(props: { name: string; onDone: () => void }) {
  const action = useAction();
  const confirm = () =>
    void action
      .run(() => swf('DeprecateDomain', { name: props.name }))
      .then((ok) => ok && props.onDone());
  return (
    <Modal title={`Deprecate ${props.name}?`} onClose={props.onDone}>
      <p>
        No new executions or types can be registered in a deprecated domain; the executions in it
        run on. It can be undeprecated later.
      </p>
      {action.error === undefined ? null : <ErrorBox error={action.error} />}
      <div class="buttons">
        <button type="button" class="danger" disabled={action.busy} onClick={confirm}>
          Deprecate
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
