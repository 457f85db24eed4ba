/**
 * Names with unusual characters. Domains, workflow and activity types and versions, workflowIds,
 * task lists, activityIds and timerIds are refused (ValidationException) as the identifier rule says:
 * no ':', '/', '|' or control character, not "arn", and no whitespace at either end. Accepted names, including ones like the table's key parts ('#', 'DOMAIN',
 * 'p#WTYPE#REGISTERED'), round-trip and never mix with one another; signal and marker names and
 * execution tags take any character.
 */
import {
  DescribeDomainCommand,
  DescribeWorkflowExecutionCommand,
  ListDomainsCommand,
  ListOpenWorkflowExecutionsCommand,
  ListWorkflowTypesCommand,
  PollForDecisionTaskCommand,
  RegisterActivityTypeCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { expectCallFault, wireType } from '../support/contract.js';
import { decide, eventsOf, SwfDriver } from '../support/decider.js';
import { registerDomain, registerWorkflowType, serverForFile } from '../support/local.js';

const wf = { name: 'wf', version: '1' };

const server = serverForFile({ polling: { maxWaitMs: 300 } });

const FORBIDDEN = [
  ':',
  '/',
  '|',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0080',
  '\u0085',
  '\u009f',
];

const expectValidation = (action: string, body: Record<string, unknown>) =>
  expectCallFault(server.service.endpoint, action, body, wireType.validation);

/** Registers workflow type `name`, version `version`, in `domain`. */
const registerWf = (domain: string, name: string, version = '1') =>
  registerWorkflowType(server.swf, domain, { name, version });

/** Registers `domain` and workflow type wf/1 in it; a driver for the domain. */
async function domainWithWf(domain: string): Promise<SwfDriver> {
  await registerDomain(server.swf, domain);
  await registerWf(domain, wf.name);
  return new SwfDriver(server.swf, domain);
}

describe('names', () => {
  it('domain names: the identifier rule, whitespace ends, and round trips', async () => {
    const before = (
      await server.swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }))
    ).domainInfos;
    for (const ch of FORBIDDEN) {
      for (const name of [`a${ch}b`, `${ch}`, `a${ch}`])
        await expectValidation('RegisterDomain', {
          name,
          workflowExecutionRetentionPeriodInDays: '1',
        });
    }
    for (const name of ['arn', ' a', 'a ', '\ta', 'a\n', ' '])
      await expectValidation('RegisterDomain', {
        name,
        workflowExecutionRetentionPeriodInDays: '1',
      });
    expect(
      (await server.swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' })))
        .domainInfos,
    ).toStrictEqual(before);
    const accepted = [
      'ARN',
      'Arn',
      'arnx',
      'x arn',
      'a#b',
      '#',
      'DOMAIN',
      'DOMAINS',
      'META',
      'RUN',
      'p#WTYPE#REGISTERED',
      'p',
      'üñï😀',
      'a\u2028b',
      'a\u00adb',
      'a b',
      '~',
    ];
    for (const name of accepted) {
      await registerDomain(server.swf, name);
      const d = await server.swf.send(new DescribeDomainCommand({ name }));
      expect(d.domainInfo?.name).toBe(name);
    }
    const listed = (
      await server.swf.send(new ListDomainsCommand({ registrationStatus: 'REGISTERED' }))
    ).domainInfos?.map((d) => d.name);
    for (const name of accepted) expect(listed).toContain(name);
    // types of 'p' and of 'p#WTYPE#REGISTERED' never mix
    await registerWf('p', 'only-p');
    await registerWf('p#WTYPE#REGISTERED', 'only-pp');
    await registerWf('a#b', 'only-ab');
    const types = async (domain: string) =>
      (
        await server.swf.send(
          new ListWorkflowTypesCommand({ domain, registrationStatus: 'REGISTERED' }),
        )
      ).typeInfos?.map((t) => t.workflowType?.name);
    expect(await types('p')).toStrictEqual(['only-p']);
    expect(await types('p#WTYPE#REGISTERED')).toStrictEqual(['only-pp']);
    expect(await types('a#b')).toStrictEqual(['only-ab']);
    expect(await types('#')).toStrictEqual([]);
  });

  it('type names and versions: the rule, and look-alike names stay apart', async () => {
    const domain = 'types-names';
    await registerDomain(server.swf, domain);
    for (const ch of FORBIDDEN) {
      await expectValidation('RegisterWorkflowType', { domain, name: `a${ch}b`, version: '1' });
      await expectValidation('RegisterWorkflowType', { domain, name: 'a', version: `1${ch}` });
      await expectValidation('RegisterActivityType', { domain, name: `a${ch}b`, version: '1' });
      await expectValidation('RegisterActivityType', { domain, name: 'a', version: `1${ch}` });
    }
    await expectValidation('RegisterWorkflowType', { domain, name: 'arn', version: '1' });
    await expectValidation('RegisterActivityType', { domain, name: 'a', version: 'arn' });
    for (const [name, version] of [
      [' a', '1'],
      ['a ', '1'],
      ['a', ' 1'],
      ['a', '1\t'],
      ['a', '1\u00a0'],
    ]) {
      await expectValidation('RegisterWorkflowType', { domain, name, version });
      await expectValidation('RegisterActivityType', { domain, name, version });
    }
    const names: [string, string][] = [
      ['a', 'b c'],
      ['a b', 'c'],
      ['a#b', 'c'],
      ['a', 'b#c'],
      ['a', 'b'],
      ['a\u2028b', '1'],
      ['x', '1 2'],
    ];
    for (const [name, version] of names) {
      await registerWf(domain, name, version);
      await server.swf.send(new RegisterActivityTypeCommand({ domain, name, version }));
    }
    const listed = (
      await server.swf.send(
        new ListWorkflowTypesCommand({ domain, registrationStatus: 'REGISTERED' }),
      )
    ).typeInfos?.map((t) => [t.workflowType?.name, t.workflowType?.version]);
    expect(listed?.length).toBe(7);
    const byName = (
      await server.swf.send(
        new ListWorkflowTypesCommand({ domain, registrationStatus: 'REGISTERED', name: 'a' }),
      )
    ).typeInfos?.map((t) => [t.workflowType?.name, t.workflowType?.version]);
    expect(byName).toStrictEqual([
      ['a', 'b'],
      ['a', 'b c'],
      ['a', 'b#c'],
    ]);
  });

  it('workflowIds and task lists: the rule, look-alikes apart, round trips', async () => {
    const domain = 'exec-names';
    const driver = await domainWithWf(domain);
    for (const ch of FORBIDDEN) {
      await expectValidation('StartWorkflowExecution', {
        domain,
        workflowType: wf,
        workflowId: `w${ch}x`,
      });
      await expectValidation('StartWorkflowExecution', {
        domain,
        workflowType: wf,
        workflowId: 'ok',
        taskList: { name: `t${ch}` },
      });
      await expectValidation('PollForDecisionTask', { domain, taskList: { name: `t${ch}` } });
      await expectValidation('PollForActivityTask', { domain, taskList: { name: `t${ch}` } });
    }
    for (const workflowId of ['arn', 'w ', ' w', 'w\u2028', 'w\u00a0', '\tw'])
      await expectValidation('StartWorkflowExecution', { domain, workflowType: wf, workflowId });
    for (const tl of [' t', 't ', 'arn'])
      await expectValidation('StartWorkflowExecution', {
        domain,
        workflowType: wf,
        workflowId: 'ok',
        taskList: { name: tl },
      });
    const ids = [
      'w',
      'w x',
      'x w',
      'w#',
      'w#1',
      '#',
      'w\u2028x',
      '😀',
      'OPEN',
      'W',
      'w\u00a0x',
      'ARN',
    ];
    const lists = ['tl', 'tl#1', 'tl#', '😀', 'T L', 'tl\u2028x'];
    const runs = new Map<string, { runId: string; taskList: string }>();
    for (const [i, id] of ids.entries())
      runs.set(id, { runId: '', taskList: lists[i % lists.length] ?? 'tl' });
    for (const [workflowId, entry] of runs) {
      const { execution } = await driver.start(wf, {
        workflowId,
        taskList: { name: entry.taskList },
        input: workflowId,
      });
      entry.runId = execution.runId;
    }
    await server.service.streamCaughtUp();
    for (const [workflowId, entry] of runs) {
      const d = await server.swf.send(
        new DescribeWorkflowExecutionCommand({
          domain,
          execution: { workflowId, runId: entry.runId },
        }),
      );
      expect(d.executionInfo?.execution).toStrictEqual({ workflowId, runId: entry.runId });
      expect(d.executionConfiguration?.taskList?.name).toBe(entry.taskList);
      const listed = await server.swf.send(
        new ListOpenWorkflowExecutionsCommand({
          domain,
          startTimeFilter: { oldestDate: new Date(0) },
          executionFilter: { workflowId },
        }),
      );
      expect(listed.executionInfos?.map((e) => e.execution)).toStrictEqual([
        { workflowId, runId: entry.runId },
      ]);
      await driver.signal({ workflowId }, `sig-${workflowId}`);
    }
    // each task list hands out only its own executions' tasks
    const polled = new Map<string, string[]>();
    for (const tl of lists) {
      const got: string[] = [];
      for (;;) {
        const t = await server.swf.send(
          new PollForDecisionTaskCommand({ domain, taskList: { name: tl } }),
        );
        if (t.taskToken === undefined) break;
        got.push(t.workflowExecution?.workflowId ?? '?');
        const signals = eventsOf(t.events, 'WorkflowExecutionSignaled');
        expect(
          signals.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName),
        ).toStrictEqual([`sig-${t.workflowExecution?.workflowId}`]);
        const started = (t.events ?? [])[0]?.workflowExecutionStartedEventAttributes;
        expect(started?.input).toBe(t.workflowExecution?.workflowId);
        await driver.respond(t.taskToken, [decide.complete()]);
      }
      polled.set(tl, got.sort());
    }
    for (const tl of lists) {
      const expected = [...runs]
        .filter(([, e]) => e.taskList === tl)
        .map(([id]) => id)
        .sort();
      expect(polled.get(tl), tl).toStrictEqual(expected);
    }
  }, 60_000);

  it('activityIds and timerIds follow the rule; signal and marker names with any character round-trip', async () => {
    const domain = 'decision-names';
    const driver = await domainWithWf(domain);
    await server.swf.send(new RegisterActivityTypeCommand({ domain, name: 'act', version: '1' }));
    const { execution, taskList } = await driver.start(wf);
    const task = await driver.pollDecision(taskList);
    const before = await driver.history(execution);
    const scheduling = (activityId: string) =>
      decide.scheduleActivity({
        activityType: { name: 'act', version: '1' },
        activityId,
        taskList: { name: 'x' },
        scheduleToCloseTimeout: 'NONE',
        scheduleToStartTimeout: 'NONE',
        startToCloseTimeout: 'NONE',
        heartbeatTimeout: 'NONE',
      });
    const timer = (timerId: string) => decide.startTimer(timerId, '100');
    for (const ch of FORBIDDEN) {
      await expectValidation('RespondDecisionTaskCompleted', {
        taskToken: task.taskToken,
        decisions: [scheduling(`a${ch}`)],
      });
      await expectValidation('RespondDecisionTaskCompleted', {
        taskToken: task.taskToken,
        decisions: [timer(`t${ch}`)],
      });
    }
    await expectValidation('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [scheduling('arn')],
    });
    await expectValidation('RespondDecisionTaskCompleted', {
      taskToken: task.taskToken,
      decisions: [timer('arn')],
    });
    for (const id of [' a', 'a ', 'a\n']) {
      await expectValidation('RespondDecisionTaskCompleted', {
        taskToken: task.taskToken,
        decisions: [scheduling(id)],
      });
      await expectValidation('RespondDecisionTaskCompleted', {
        taskToken: task.taskToken,
        decisions: [timer(id)],
      });
    }
    expect(await driver.history(execution)).toStrictEqual(before);
    const odd = ['a:b', 'a/b', 'a|b', 'a\u0000b', 'a\u0001b', '#', '😀', ' x ', 'arn'];
    await driver.respond(task.taskToken, [
      ...odd.map((m) => decide.marker(m, m)),
      scheduling('a#1'),
      scheduling('a#'),
      scheduling('a 1'),
      timer('t#1'),
      timer('t 1'),
    ]);
    for (const s of odd) await driver.signal(execution, s, s);
    const h = await driver.history(execution);
    const markers = eventsOf(h, 'MarkerRecorded').map((e) => [
      e.markerRecordedEventAttributes?.markerName,
      e.markerRecordedEventAttributes?.details,
    ]);
    expect(markers).toStrictEqual(odd.map((m) => [m, m]));
    const signals = eventsOf(h, 'WorkflowExecutionSignaled').map((e) => [
      e.workflowExecutionSignaledEventAttributes?.signalName,
      e.workflowExecutionSignaledEventAttributes?.input,
    ]);
    expect(signals).toStrictEqual(odd.map((m) => [m, m]));
    expect(
      eventsOf(h, 'ActivityTaskScheduled').map(
        (e) => e.activityTaskScheduledEventAttributes?.activityId,
      ),
    ).toStrictEqual(['a#1', 'a#', 'a 1']);
    expect(
      eventsOf(h, 'TimerStarted').map((e) => e.timerStartedEventAttributes?.timerId),
    ).toStrictEqual(['t#1', 't 1']);
    const d = await driver.describe(execution);
    expect(d.openCounts?.openActivityTasks).toBe(3);
    expect(d.openCounts?.openTimers).toBe(2);
  }, 60_000);

  it('execution tags with separators do not mix in tag listings', async () => {
    const domain = 'tag-names';
    const driver = await domainWithWf(domain);
    const tags = ['a', 'a|1', 'a|', '|a', 'a#1', 'a|1|2', '1', 'a:1', 'a\u0000', ''];
    const byTag = new Map<string, string>();
    for (const tag of tags) {
      const { execution } = await driver.start(wf, { tagList: [tag] });
      byTag.set(tag, execution.workflowId);
    }
    await server.service.streamCaughtUp();
    for (const tag of tags) {
      const listed = await server.swf.send(
        new ListOpenWorkflowExecutionsCommand({
          domain,
          startTimeFilter: { oldestDate: new Date(0) },
          tagFilter: { tag },
        }),
      );
      expect(
        listed.executionInfos?.map((e) => e.execution?.workflowId),
        JSON.stringify(tag),
      ).toStrictEqual([byTag.get(tag)]);
    }
  }, 60_000);
});
