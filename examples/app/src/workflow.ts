/**
 * The workflow this app deploys: a new customer's onboarding. The decider asks for an account, then
 * for a welcome message to it, and completes with both results; a failed step fails the execution.
 * Replace it with yours: the decider is a plain function of the replayed history, the activities
 * plain async functions.
 */

import {
  RegisterActivityTypeCommand,
  RegisterDomainCommand,
  RegisterWorkflowTypeCommand,
} from '@aws-sdk/client-swf';
import {
  type Activity,
  ActivityFailure,
  type Decider,
  decide,
  type SWFClient,
} from 'swf-on-dynamo/sdk';

export const DOMAIN = 'onboarding';
export const WORKFLOW = { name: 'Onboarding', version: '1' };
export const DECISIONS = 'onboarding-decisions';
export const ACTIVITIES = 'onboarding-activities';
const CREATE_ACCOUNT = { name: 'CreateAccount', version: '1' };
const SEND_WELCOME = { name: 'SendWelcome', version: '1' };

/** The activities, by activity type name: what the worker function runs. */
export const activities: Record<string, Activity> = {
  CreateAccount: async (email) => {
    if (email === undefined || !email.includes('@'))
      throw new ActivityFailure('InvalidEmail', `not an email address: ${email}`);
    return `account-${email.split('@')[0]}`;
  },
  SendWelcome: async (account, ctx) => {
    ctx.heartbeat('composing');
    return `Welcome aboard, ${account}!`;
  },
};

/** The decider: what the decider function answers each decision task with. */
export const onboarding: Decider = (state) => {
  const account = state.activities.get('create-account');
  if (account === undefined) return [schedule('create-account', CREATE_ACCOUNT, state.input)];
  if (account.status === 'scheduled' || account.status === 'started') return [];
  if (account.status !== 'completed')
    return [decide.failWorkflowExecution('CreateAccount did not succeed', account.reason)];
  const welcome = state.activities.get('send-welcome');
  if (welcome === undefined) return [schedule('send-welcome', SEND_WELCOME, account.result)];
  if (welcome.status === 'scheduled' || welcome.status === 'started') return [];
  if (welcome.status !== 'completed')
    return [decide.failWorkflowExecution('SendWelcome did not succeed', welcome.reason)];
  return [
    decide.completeWorkflowExecution(
      JSON.stringify({ account: account.result, welcome: welcome.result }),
    ),
  ];
};

const schedule = (
  activityId: string,
  activityType: { name: string; version: string },
  input: string | undefined,
) =>
  decide.scheduleActivityTask({
    activityId,
    activityType,
    ...(input === undefined ? {} : { input }),
  });

/**
 * Registers the domain and the types, once: what is registered already is left as it is (SWF keeps
 * a type's defaults; register a new version to change them).
 */
export async function register(client: SWFClient): Promise<void> {
  await once(
    client.send(
      new RegisterDomainCommand({ name: DOMAIN, workflowExecutionRetentionPeriodInDays: '7' }),
    ),
  );
  await once(
    client.send(
      new RegisterWorkflowTypeCommand({
        domain: DOMAIN,
        ...WORKFLOW,
        defaultTaskList: { name: DECISIONS },
        defaultChildPolicy: 'TERMINATE',
        defaultExecutionStartToCloseTimeout: '3600',
        defaultTaskStartToCloseTimeout: '30',
      }),
    ),
  );
  for (const type of [CREATE_ACCOUNT, SEND_WELCOME])
    await once(
      client.send(
        new RegisterActivityTypeCommand({
          domain: DOMAIN,
          ...type,
          defaultTaskList: { name: ACTIVITIES },
          defaultTaskHeartbeatTimeout: '60',
          defaultTaskScheduleToStartTimeout: '300',
          defaultTaskStartToCloseTimeout: '120',
          defaultTaskScheduleToCloseTimeout: '600',
        }),
      ),
    );
}

async function once(registration: Promise<unknown>): Promise<void> {
  try {
    await registration;
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'DomainAlreadyExistsFault' || name === 'TypeAlreadyExistsFault') return;
    throw error;
  }
}
