/** A decider written against the package's types: greet, then complete with the greeting. */
import { type Decider, decide } from 'swf-on-dynamo/sdk';

export const GREET = { name: 'Greet', version: '1' };

export const greeting: Decider = (state) => {
  const greet = state.activities.get('greet');
  if (greet === undefined)
    return [
      decide.scheduleActivityTask({
        activityId: 'greet',
        activityType: GREET,
        ...(state.input === undefined ? {} : { input: state.input }),
      }),
    ];
  if (greet.status === 'scheduled' || greet.status === 'started') return [];
  if (greet.status === 'completed') return [decide.completeWorkflowExecution(greet.result)];
  return [decide.failWorkflowExecution('Greet did not succeed', greet.reason ?? greet.cause)];
};
