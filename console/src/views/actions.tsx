import { useState } from 'preact/hooks';
import { ErrorBox, Field, Modal } from '../components.js';
import { useAction } from '../hooks.js';
import { type ExecutionRef, swf } from '../swf.js';

export type ActionKind = 'signal' | 'cancel' | 'terminate';

const CHILD_POLICIES = ['', 'TERMINATE', 'REQUEST_CANCEL', 'ABANDON'] as const;

/** Signal, request cancel or terminate (each confirmed in a dialog), on this very run. */
export function ActionDialog(props: {
  kind: ActionKind;
  domain: string;
  execution: ExecutionRef;
  onClose: () => void;
  onDone: () => void;
}) {
  const action = useAction();
  const target = {
    domain: props.domain,
    workflowId: props.execution.workflowId,
    runId: props.execution.runId,
  };
  const submit = (call: () => Promise<unknown>) => (event: Event) => {
    event.preventDefault();
    void action.run(call).then((ok) => ok && props.onDone());
  };
  const buttons = (label: string, danger = false) => (
    <>
      {action.error === undefined ? null : <ErrorBox error={action.error} />}
      <div class="buttons">
        <button type="submit" class={danger ? 'danger' : ''} disabled={action.busy}>
          {label}
        </button>
        <button type="button" class="secondary" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </>
  );
  switch (props.kind) {
    case 'signal':
      return (
        <SignalForm
          onClose={props.onClose}
          submit={(input) => submit(() => swf('SignalWorkflowExecution', { ...target, ...input }))}
          buttons={buttons('Send signal')}
        />
      );
    case 'cancel':
      return (
        <Modal title="Request cancel?" onClose={props.onClose}>
          <form onSubmit={submit(() => swf('RequestCancelWorkflowExecution', target))}>
            <p>
              The decider is told with a <code>WorkflowExecutionCancelRequested</code> event; it
              decides whether and how the run closes.
            </p>
            {buttons('Request cancel')}
          </form>
        </Modal>
      );
    case 'terminate':
      return (
        <TerminateForm
          onClose={props.onClose}
          submit={(input) =>
            submit(() => swf('TerminateWorkflowExecution', { ...target, ...input }))
          }
          buttons={buttons('Terminate', true)}
          workflowId={props.execution.workflowId}
        />
      );
  }
}

type Submit = (input: Record<string, string>) => (event: Event) => void;

function SignalForm(props: {
  onClose: () => void;
  submit: Submit;
  buttons: preact.ComponentChildren;
}) {
  const [name, setName] = useState('');
  const [input, setInput] = useState('');
  return (
    <Modal title="Send a signal" onClose={props.onClose}>
      <form onSubmit={props.submit({ signalName: name, ...(input === '' ? {} : { input }) })}>
        <Field label="Signal name">
          <input
            required
            value={name}
            maxLength={256}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <Field
          label="Input"
          hint="Any text up to 32,768 characters; JSON is shown pretty-printed in the history"
        >
          <textarea
            rows={5}
            value={input}
            maxLength={32_768}
            onInput={(e) => setInput(e.currentTarget.value)}
          />
        </Field>
        {props.buttons}
      </form>
    </Modal>
  );
}

function TerminateForm(props: {
  onClose: () => void;
  submit: Submit;
  buttons: preact.ComponentChildren;
  workflowId: string;
}) {
  const [reason, setReason] = useState('');
  const [details, setDetails] = useState('');
  const [childPolicy, setChildPolicy] = useState('');
  const input = {
    ...(reason === '' ? {} : { reason }),
    ...(details === '' ? {} : { details }),
    ...(childPolicy === '' ? {} : { childPolicy }),
  };
  return (
    <Modal title={`Terminate ${props.workflowId}?`} onClose={props.onClose}>
      <form onSubmit={props.submit(input)}>
        <p class="warning">
          Terminating closes the run at once: the decider is not asked, and its open tasks are
          dropped. It cannot be undone.
        </p>
        <Field label="Reason">
          <input value={reason} maxLength={256} onInput={(e) => setReason(e.currentTarget.value)} />
        </Field>
        <Field label="Details">
          <textarea
            rows={3}
            value={details}
            maxLength={32_768}
            onInput={(e) => setDetails(e.currentTarget.value)}
          />
        </Field>
        <Field
          label="Child policy"
          hint="What happens to its open children (default: the run's own policy)"
        >
          <select value={childPolicy} onChange={(e) => setChildPolicy(e.currentTarget.value)}>
            {CHILD_POLICIES.map((policy) => (
              <option key={policy} value={policy}>
                {policy === '' ? 'The run’s own' : policy}
              </option>
            ))}
          </select>
        </Field>
        {props.buttons}
      </form>
    </Modal>
  );
}
