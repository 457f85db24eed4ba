/**
 * Workflows as code are part of the SDK, which runs unchanged against Amazon SWF: they import only
 * the SDK's own modules and @aws-sdk/client-swf, never the service (lib/core, operations, adapters).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const folder = new URL('../../lib/sdk/workflow/', import.meta.url);

it('lib/sdk/workflow imports nothing but the SDK and @aws-sdk/client-swf', () => {
  const files = readdirSync(folder).filter((f) => f.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(10);
  const imports = files.flatMap((file) =>
    [...readFileSync(new URL(file, folder), 'utf8').matchAll(/from '([^']+)'/g)].map(
      (m) => `${file}: ${m[1]}`,
    ),
  );
  const allowed =
    /: (\.\/[\w-]+\.js|\.\.\/(activity|decider)\/[\w-]+\.js|\.\.\/(errors|logger|util)\.js|@aws-sdk\/client-swf)$/;
  expect(imports.filter((i) => !allowed.test(i))).toEqual([]);
});
