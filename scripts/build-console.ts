/**
 * `npm run build:console`: bundles the console into console/dist, which a package ships so that its
 * server needs no esbuild at run time (a checkout builds the console from source when it starts).
 */
import { PREBUILT_DIR, writeConsole } from '../lib/console/assets.js';

const files = await writeConsole();
console.log(`console: ${files.join(', ')} written to ${PREBUILT_DIR}`);
