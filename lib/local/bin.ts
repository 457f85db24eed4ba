#!/usr/bin/env node
/**
 * The package's command, `swf-on-dynamo`: `swf-on-dynamo [--port N] [--data DIR] [...]` starts the
 * local service as `npm start` does; `swf-on-dynamo console [...]` serves the web console for a
 * deployed stack or Amazon SWF, as `npm run console` does. Each reads its own options from argv.
 */
if (process.argv[2] === 'console') {
  process.argv.splice(2, 1);
  await import('../console/run.js');
} else {
  await import('./start.js');
}
