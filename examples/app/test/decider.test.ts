/**
 * The decider and the activities alone, with no service: histories written by hand for the decider,
 * a mock context for the activities (swf-on-dynamo/testing).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decide } from 'swf-on-dynamo/sdk';
import { events, historyOf, MockActivityContext } from 'swf-on-dynamo/testing';
import { activities, onboarding } from '../src/workflow.js';

const started = events.workflowStarted({ workflowType: 'Onboarding', input: 'ada@example.com' });

test('creates the account first', () => {
  assert.deepEqual(onboarding(historyOf(started).state()), [
    decide.scheduleActivityTask({
      activityId: 'create-account',
      activityType: { name: 'CreateAccount', version: '1' },
      input: 'ada@example.com',
    }),
  ]);
});

test('welcomes the account once it exists', () => {
  const history = historyOf(
    started,
    events.activityScheduled('create-account', 'CreateAccount'),
    events.activityCompleted('create-account', 'account-ada'),
  );
  assert.deepEqual(onboarding(history.state()), [
    decide.scheduleActivityTask({
      activityId: 'send-welcome',
      activityType: { name: 'SendWelcome', version: '1' },
      input: 'account-ada',
    }),
  ]);
});

test('fails the onboarding when the account cannot be created', () => {
  const history = historyOf(
    started,
    events.activityScheduled('create-account', 'CreateAccount'),
    events.activityFailed('create-account', 'InvalidEmail'),
  );
  assert.deepEqual(onboarding(history.state()), [
    decide.failWorkflowExecution('CreateAccount did not succeed', 'InvalidEmail'),
  ]);
});

test('CreateAccount refuses what is not an address', async () => {
  const activity = activities.CreateAccount;
  assert.ok(activity);
  assert.deepEqual(await new MockActivityContext({ input: 'nobody' }).run(activity), {
    kind: 'failed',
    reason: 'InvalidEmail',
    details: 'not an email address: nobody',
  });
});
