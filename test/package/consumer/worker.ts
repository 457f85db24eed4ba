/** Activities written against the package's types. */
import type { Activity } from 'swf-on-dynamo/sdk';

export const activities: Record<string, Activity> = {
  Greet: async (name, ctx) => {
    ctx.heartbeat('greeting');
    return `Hello, ${name}!`;
  },
};
