// The esbuild options both builds share: dist/ for the npm install (scripts/build.mjs) and the one
// script inside the single executable (scripts/build-binary.mjs).
import { readFileSync } from 'node:fs';

export const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

export const sharedBundleOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20.19',
  sourcemap: false,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  define: { __ESIGN_VERSION__: JSON.stringify(packageJson.version) },
  logLevel: 'warning',
};
