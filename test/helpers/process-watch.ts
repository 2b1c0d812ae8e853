// Loaded with `node --import` into the built binary: reports, in the JSON file named by
// ESIGN_WATCH_REPORT when the process exits, which ES modules it loaded (through Node's loader: the
// bundle's files), every Node built-in it loaded, and whether its V8 flags changed.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { cachedDataVersionTag } from 'node:v8';

const report = process.env.ESIGN_WATCH_REPORT;
if (!report) throw new Error('process-watch: set ESIGN_WATCH_REPORT');
const modulesFile = `${report}.modules`;
writeFileSync(modulesFile, '');
// The hooks run on a thread of their own; they append each module's URL as it loads.
const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(modulesFile)}, url + '\\n');
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

const moduleLoadList = () => (process as unknown as { moduleLoadList: string[] }).moduleLoadList;
// The tag V8 derives from its version and flags: it changes when a flag is set.
const tagAtStart = cachedDataVersionTag();
process.on('exit', () => {
  appendFileSync(modulesFile, '');
  writeFileSync(
    report,
    JSON.stringify({
      modules: readFileSync(modulesFile, 'utf8').split('\n').filter(Boolean),
      builtins: moduleLoadList(),
      flagsChanged: cachedDataVersionTag() !== tagAtStart,
    }),
  );
});
