import { main } from './cli.js';

// `npm run console -- …`: see cli.ts. Stops on Ctrl-C or SIGTERM.
main(process.argv.slice(2))
  .then((proxy) => {
    if (proxy === undefined) return;
    const stop = () => void proxy.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
