import { useEffect, useState } from 'preact/hooks';
import { ErrorBox, Field, Loading } from '../components.js';
import { useAction, useAsync } from '../hooks.js';
import { executionHref, type Route } from '../routes.js';
import { attributesOf, type ExecutionRef, historyPage, swf, type TypeRef } from '../swf.js';

interface StartForm {
  workflowId: string;
  type: string;
  taskList: string;
  input: string;
  tags: string;
  executionStartToCloseTimeout: string;
  taskStartToCloseTimeout: string;
  childPolicy: string;
  lambdaRole: string;
  taskPriority: string;
}

const EMPTY: StartForm = {
  workflowId: '',
  type: '',
  taskList: '',
  input: '',
  tags: '',
  executionStartToCloseTimeout: '',
  taskStartToCloseTimeout: '',
  childPolicy: '',
  lambdaRole: '',
  taskPriority: '',
};

const typeValue = (type: TypeRef) => JSON.stringify([type.name, type.version]);
const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** The form of a run started again: what its WorkflowExecutionStarted event recorded. */
async function fromRun(domain: string, run: ExecutionRef, signal: AbortSignal): Promise<StartForm> {
  const page = await historyPage(domain, run, { size: 1 }, signal);
  const first = page.items[0];
  const a = first === undefined ? {} : attributesOf(first);
  return {
    workflowId: run.workflowId,
    type: typeValue(a.workflowType as TypeRef),
    taskList: str((a.taskList as { name?: string } | undefined)?.name),
    input: str(a.input),
    tags: ((a.tagList as string[] | undefined) ?? []).join(', '),
    executionStartToCloseTimeout: str(a.executionStartToCloseTimeout),
    taskStartToCloseTimeout: str(a.taskStartToCloseTimeout),
    childPolicy: str(a.childPolicy),
    lambdaRole: str(a.lambdaRole),
    taskPriority: str(a.taskPriority),
  };
}

/** The type's defaults, filled into the form's fields. */
async function withDefaults(
  domain: string,
  form: StartForm,
  signal?: AbortSignal,
): Promise<StartForm> {
  const [name, version] = JSON.parse(form.type) as [string, string];
  const { configuration: c = {} } = await swf<{ configuration?: Record<string, unknown> }>(
    'DescribeWorkflowType',
    { domain, workflowType: { name, version } },
    signal,
  );
  return {
    ...form,
    taskList: str((c.defaultTaskList as { name?: string } | undefined)?.name),
    executionStartToCloseTimeout: str(c.defaultExecutionStartToCloseTimeout),
    taskStartToCloseTimeout: str(c.defaultTaskStartToCloseTimeout),
    childPolicy: str(c.defaultChildPolicy),
    lambdaRole: str(c.defaultLambdaRole),
    taskPriority: str(c.defaultTaskPriority),
  };
}

/** Start an execution: a type's defaults filled in, or a run's own start copied (start again). */
export function StartView(props: { route: Extract<Route, { view: 'start' }> }) {
  const { domain, from, type } = props.route;
  const types = useAsync(
    (signal) =>
      swf<{ typeInfos?: { workflowType: TypeRef }[] }>(
        'ListWorkflowTypes',
        { domain, registrationStatus: 'REGISTERED', maximumPageSize: 1000 },
        signal,
      ),
    [domain],
  );
  const initial = useAsync(
    async (signal) => {
      if (from !== undefined) return fromRun(domain, from, signal);
      if (type === undefined) return EMPTY;
      return withDefaults(
        domain,
        { ...EMPTY, type: typeValue(type), workflowId: `${type.name}-${Date.now().toString(36)}` },
        signal,
      );
    },
    [domain],
  );
  const [form, setForm] = useState<StartForm | undefined>();
  useEffect(() => {
    if (initial.value !== undefined) setForm(initial.value);
  }, [initial.value]);
  const action = useAction();
  const chooseType = (value: string) => {
    if (form === undefined) return;
    void action.run(async () =>
      setForm(
        await withDefaults(domain, {
          ...form,
          type: value,
          workflowId:
            form.workflowId || `${(JSON.parse(value) as string[])[0]}-${Date.now().toString(36)}`,
        }),
      ),
    );
  };
  if (initial.error !== undefined)
    return <ErrorBox error={initial.error} onRetry={initial.reload} />;
  if (form === undefined) return <Loading what="the form" />;
  const set = (key: keyof StartForm) => (e: Event) =>
    setForm({ ...form, [key]: (e.currentTarget as HTMLInputElement).value });
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const { runId } = await swf<{ runId: string }>(
        'StartWorkflowExecution',
        startInput(domain, form),
      );
      location.hash = executionHref(domain, { workflowId: form.workflowId, runId });
    });
  };
  return (
    <section>
      <h1>{from === undefined ? 'Start an execution' : `Start ${from.workflowId} again`}</h1>
      {types.error === undefined ? null : <ErrorBox error={types.error} onRetry={types.reload} />}
      <form class="start" onSubmit={submit}>
        <Field label="Workflow type">
          <select required value={form.type} onChange={(e) => chooseType(e.currentTarget.value)}>
            <option value="">Choose a type…</option>
            {(types.value?.typeInfos ?? []).map(({ workflowType: t }) => (
              <option key={typeValue(t)} value={typeValue(t)}>
                {t.name} v{t.version}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Workflow ID">
          <input required maxLength={256} value={form.workflowId} onInput={set('workflowId')} />
        </Field>
        <Field label="Input">
          <textarea rows={6} maxLength={32_768} value={form.input} onInput={set('input')} />
        </Field>
        <Field label="Tags" hint="Up to 5, separated by commas">
          <input value={form.tags} onInput={set('tags')} />
        </Field>
        <fieldset class="grid">
          <legend>Settings (the type’s defaults are filled in)</legend>
          <Field label="Decision task list">
            <input value={form.taskList} onInput={set('taskList')} />
          </Field>
          <Field label="Execution start-to-close timeout (s)">
            <input
              value={form.executionStartToCloseTimeout}
              onInput={set('executionStartToCloseTimeout')}
            />
          </Field>
          <Field label="Decision task start-to-close timeout (s or NONE)">
            <input value={form.taskStartToCloseTimeout} onInput={set('taskStartToCloseTimeout')} />
          </Field>
          <Field label="Child policy">
            <select value={form.childPolicy} onChange={set('childPolicy')}>
              {['', 'TERMINATE', 'REQUEST_CANCEL', 'ABANDON'].map((p) => (
                <option key={p} value={p}>
                  {p === '' ? '(none)' : p}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Task priority">
            <input value={form.taskPriority} onInput={set('taskPriority')} />
          </Field>
          <Field label="Lambda role">
            <input value={form.lambdaRole} onInput={set('lambdaRole')} />
          </Field>
        </fieldset>
        {action.error === undefined ? null : <ErrorBox error={action.error} />}
        <div class="buttons">
          <button type="submit" disabled={action.busy || form.type === ''}>
            Start
          </button>
        </div>
      </form>
    </section>
  );
}

/** StartWorkflowExecution's input: the fields left empty are left out (the type's defaults apply). */
export function startInput(domain: string, form: StartForm): Record<string, unknown> {
  const [name = '', version = ''] = form.type === '' ? [] : (JSON.parse(form.type) as string[]);
  const optional = (key: string, value: string) =>
    value.trim() === '' ? {} : { [key]: value.trim() };
  const tags = form.tags
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  return {
    domain,
    workflowId: form.workflowId.trim(),
    workflowType: { name, version },
    ...(form.input === '' ? {} : { input: form.input }),
    ...(tags.length === 0 ? {} : { tagList: tags }),
    ...(form.taskList.trim() === '' ? {} : { taskList: { name: form.taskList.trim() } }),
    ...optional('executionStartToCloseTimeout', form.executionStartToCloseTimeout),
    ...optional('taskStartToCloseTimeout', form.taskStartToCloseTimeout),
    ...optional('childPolicy', form.childPolicy),
    ...optional('taskPriority', form.taskPriority),
    ...optional('lambdaRole', form.lambdaRole),
  };
}
