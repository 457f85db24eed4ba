// The npm registry this project builds from lacks some platform builds (darwin, win32, musl) of
// optional native packages; `npm install` then writes a lock file that `npm ci` rejects as
// incomplete. This adds an os/cpu-scoped entry for each missing optional dependency, which
// `npm ci` accepts and skips on this platform. Run after any `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const pk = lock.packages;
let added = 0;
for (const [path, meta] of Object.entries(pk)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    const candidates = [`${base}node_modules/${name}`, `node_modules/${name}`];
    if (candidates.some((c) => pk[c])) continue;
    const m = name.match(
      /(android|darwin|linux|win32|freebsd|openbsd|openharmony|sunos|aix|netbsd)-(arm64|x64|arm|ia32|riscv64|ppc64|s390x|loong64|mips64el)?/,
    );
    pk[`node_modules/${name}`] = {
      version,
      cpu: m?.[2] ? [m[2]] : undefined,
      os: m ? [m[1]] : undefined,
      dev: meta.dev,
      optional: true,
    };
    added++;
  }
}
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log('added', added);
