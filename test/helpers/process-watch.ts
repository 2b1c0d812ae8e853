// Loaded with `node --import` into the built binary: reports, in the JSON file named by
// ESIGN_WATCH_REPORT when the process exits, which modules it loaded (ES modules through Node's
// loader; the bundle's files as bin/esign.js announces them, with what became of their code cache), every Node built-in it loaded, whether its V8 flags changed, and which Node built-ins it loaded after the
// transport announced its first request (the moment bin/esign.js sets its V8 flag), and which of
// process.stdout and process.stderr esign made (Node makes each on first use; the module hooks'
// own worker thread makes stderr too, which is not counted).
import { subscribe } from 'node:diagnostics_channel';
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
const distCache: Record<string, string> = {};
subscribe('esign:dist:load', (message) => {
  const { url, cache } = message as { url: string; cache: string };
  appendFileSync(modulesFile, `${url}\n`);
  distCache[url] = cache;
});
const streamsMade: string[] = [];
for (const name of ['stdout', 'stderr'] as const) {
  const descriptor = Object.getOwnPropertyDescriptor(process, name);
  const get = descriptor?.get;
  if (!descriptor || !get) throw new Error(`process-watch: process.${name} is no getter on this Node`);
  Object.defineProperty(process, name, {
    ...descriptor,
    get() {
      if (!streamsMade.includes(name) && calledByEsign()) streamsMade.push(name);
      return get.call(process);
    },
  });
}
function calledByEsign(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100;
  const stack = new Error('caller').stack ?? '';
  Error.stackTraceLimit = limit;
  return /[/\\](dist[/\\]|bin[/\\]esign\.js)/.test(stack);
}
let builtinsAtAnnouncement: Set<string> | undefined;
let announcements = 0;
subscribe('esign:transport:first-request', () => {
  announcements++;
  builtinsAtAnnouncement = new Set(moduleLoadList());
});
process.on('exit', () => {
  appendFileSync(modulesFile, '');
  writeFileSync(
    report,
    JSON.stringify({
      modules: readFileSync(modulesFile, 'utf8').split('\n').filter(Boolean),
      announcements,
      distCache,
      builtins: moduleLoadList(),
      flagsChanged: cachedDataVersionTag() !== tagAtStart,
      streamsMade,
      builtinsAfterAnnouncement: builtinsAtAnnouncement
        ? moduleLoadList().filter((name) => !builtinsAtAnnouncement?.has(name))
        : null,
    }),
  );
});
