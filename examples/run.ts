/**
 * `npm run example -- <name>`: runs one example against a running `npm start` (endpoint from
 * $SWF_ENDPOINT, default http://127.0.0.1:8080), or, for month-long-order, against a time-skipping
 * test environment it starts itself. Exits 0 when the example's checks pass.
 */
import { createSwfClient } from '../lib/sdk/index.js';
import type { ExampleOptions } from './support.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const EXAMPLES: Record<
  string,
  () => Promise<{ main: (options: ExampleOptions) => Promise<void> }>
> = {
  order: () => import('./order.js'),
  'cancel-order': () => import('./cancel-order.js'),
  'wait-for-signal': () => import('./wait-for-signal.js'),
  'month-long-order': () => import('./month-long-order.js'),
  'order-as-code': () => import('./order-as-code.js'),
  'cancel-order-as-code': () => import('./cancel-order-as-code.js'),
  'wait-for-signal-as-code': () => import('./wait-for-signal-as-code.js'),
};

async function run(): Promise<number> {
  const name = process.argv[2];
  const load = name === undefined ? undefined : EXAMPLES[name];
  if (load === undefined) {
    console.error(`Usage: npm run example -- <${Object.keys(EXAMPLES).join('|')}>`);
    return 2;
  }
  const client = createSwfClient({ endpoint: 'local' });
  try {
    const { main } = await load();
    await main({ client });
    console.log(`example ${name}: OK`);
    return 0;
  } catch (error) {
    console.error(`example ${name} failed:`, error instanceof Error ? error.message : error);
    return 1;
  } finally {
    client.destroy();
  }
}

process.exitCode = await run();
