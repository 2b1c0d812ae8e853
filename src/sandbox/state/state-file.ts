// --state <file>: the sandbox's data across restarts.
//
// Two files: `<file>`, a snapshot replaced atomically (temporary file, fsync, rename), and
// `<file>.journal`, the changes since that snapshot, appended as JSON Lines. A change is appended
// (in batches: every change of one event-loop turn in one write) before its HTTP answer is sent, so
// an envelope that was answered 200 survives kill -9. A write the disk takes only in part is finished
// or undone, and its requests are answered 500 (a nearly full disk never costs an answered envelope). The journal is folded into a new snapshot at
// start, at a clean stop, and when it grows past `compactAfterBytes`. Journal lines carry sequence
// numbers and the snapshot says which it covers, so a crash between the two steps repeats nothing.
// After kill -9 the journal's last line may be cut short: that write was never acknowledged, and it
// is skipped with a note. Anything else that does not parse is reported, with its path, and never
// replaced.
import { type FileHandle, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseJsonText } from '../../text/json.js';
import { SandboxError } from '../sandbox-error.js';
import { writeFileAtomic } from './atomic-write.js';
import type { StateFileSystem } from './file-system.js';
import { type Seed, seedFingerprint } from './seed.js';
import {
  describeFirstIssues,
  JournalRecord,
  journalLine,
  Snapshot,
  type StoredEnvelope,
  snapshotText,
} from './state-format.js';
import { acquireStateLock } from './state-lock.js';
import { type EnvelopeRecord, SandboxStore } from './store.js';

export interface OpenStateOptions {
  path: string;
  /** The seed for a new state file; with an existing one it must match when `seedIsExplicit`. */
  seed: Seed;
  seedIsExplicit: boolean;
  now: number;
  /** Notes for the person running the sandbox (stderr). */
  warn: (line: string) => void;
  compactAfterBytes?: number;
  /** The lock and folder sync of the program running the sandbox. */
  fileSystem: StateFileSystem;
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

const CORRUPT_HINT = 'The file was left as it is. Move it away to start afresh, or use another state file.';

/** The state file or its journal holds something else than a sandbox's state: left as it is. */
const corrupt = (message: string) => new SandboxError('state_corrupt', message, { hint: CORRUPT_HINT });

async function readIfExists(path: string, files: StateFileSystem): Promise<string | undefined> {
  try {
    const handle = await files.openFile(path, 'read');
    try {
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    const why = (error as Error).message.replace(/\.$/, '');
    throw new SandboxError('state_io', `Cannot read the state file ${path}: ${why}.`, { cause: error });
  }
}

function parseSnapshot(path: string, text: string): Snapshot {
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    throw corrupt(`The state file ${path} is corrupt: invalid JSON at ${parsed.problem}.`);
  }
  const checked = Snapshot.safeParse(parsed.value);
  if (!checked.success) {
    throw corrupt(
      `The state file ${path} is not a sandbox state file: ${describeFirstIssues(parsed.value, checked.error.issues)}.`,
    );
  }
  return checked.data;
}

/** The journal's records after the snapshot's sequence number. */
function parseJournal(
  path: string,
  text: string,
  afterSeq: number,
  warn: (line: string) => void,
): JournalRecord[] {
  const lines = text.split('\n');
  // A journal ends with a newline; anything after the last one is an append cut short by a kill.
  const tail = lines.pop() ?? '';
  const records: JournalRecord[] = [];
  let lastSeq = afterSeq;
  const accept = (line: string, lineNumber: number, isTail: boolean): void => {
    const parsed = parseJsonText(line);
    const checked = parsed.ok ? JournalRecord.safeParse(parsed.value) : undefined;
    if (!parsed.ok || !checked?.success) {
      if (isTail) {
        warn(
          `note: ${path}: skipped an incomplete last entry (the sandbox was stopped in the middle of writing it; it was never answered).`,
        );
        return;
      }
      const why = parsed.ok
        ? describeFirstIssues(parsed.value, checked?.error?.issues ?? [])
        : `invalid JSON at ${parsed.problem}`;
      throw corrupt(`The state journal ${path} is corrupt at line ${lineNumber}: ${why}.`);
    }
    const record = checked.data;
    if (record.seq <= afterSeq) return; // already in the snapshot
    if (record.seq <= lastSeq) {
      throw corrupt(
        `The state journal ${path} is corrupt at line ${lineNumber}: sequence ${record.seq} is out of order.`,
      );
    }
    lastSeq = record.seq;
    records.push(record);
  };
  lines.forEach((line, index) => {
    if (line !== '') accept(line, index + 1, false);
  });
  if (tail !== '') accept(tail, lines.length + 1, true);
  return records;
}

function envelopeFrom(stored: StoredEnvelope, store: SandboxStore, where: string): EnvelopeRecord {
  const template = store.findTemplate(stored.template_id);
  if (!template)
    throw corrupt(
      `${where}: envelope ${stored.id} names template ${stored.template_id}, which is not in the file.`,
    );
  return {
    id: stored.id.toUpperCase(),
    template,
    status: stored.status,
    createdAt: Date.parse(stored.created_at),
    expiresAt: Date.parse(stored.expires_at),
    details: JSON.stringify({ merge_data: stored.merge_data, signatory: stored.signatory }),
  };
}

const failAt = (where: string, what: string) => corrupt(`${where} is corrupt: ${what}.`);

/** The snapshot's organisations, with their tokens and templates, each found once. */
function restoreOrganisations(store: SandboxStore, snapshot: Snapshot, path: string): void {
  for (const org of snapshot.organisations) {
    if (store.findOrganisation(org.name)) throw failAt(path, `organisation '${org.name}' appears twice`);
    for (const t of org.templates)
      if (store.findTemplate(t.id)) throw failAt(path, `template ${t.id} appears twice`);
    for (const t of org.tokens)
      if (store.isTokenDigestKnown(Buffer.from(t.sha256, 'hex'))) throw failAt(path, 'a token appears twice');
    store.addOrganisation({
      name: org.name,
      templates: org.templates,
      tokens: org.tokens.map((t) => ({
        name: t.name,
        digest: Buffer.from(t.sha256, 'hex'),
        createdAt: Date.parse(t.created_at),
        revokedAt: t.revoked_at === null ? null : Date.parse(t.revoked_at),
      })),
    });
  }
}

function restoreEnvelope(store: SandboxStore, stored: StoredEnvelope, where: string): void {
  const envelope = envelopeFrom(stored, store, where);
  if (store.envelopes.has(envelope.id)) throw failAt(where, `envelope ${envelope.id} appears twice`);
  store.restoreEnvelope(envelope);
}

/** Replays one journal entry (an envelope, a token created or revoked) on the store. */
function replay(store: SandboxStore, record: JournalRecord, journalPath: string): void {
  if (record.type === 'envelope') {
    restoreEnvelope(store, record.envelope, journalPath);
    return;
  }
  const org = store.findOrganisation(record.organisation);
  if (!org)
    throw failAt(
      journalPath,
      `entry ${record.seq} names organisation '${record.organisation}', which is not in the state file`,
    );
  if (record.type === 'token_created') {
    const digest = Buffer.from(record.token.sha256, 'hex');
    if (store.isTokenDigestKnown(digest) || org.tokens.some((t) => t.name === record.token.name)) {
      throw failAt(journalPath, `entry ${record.seq} creates token '${record.token.name}' a second time`);
    }
    store.addToken(org, record.token.name, digest, Date.parse(record.token.created_at));
    return;
  }
  const token = org.tokens.find((t) => t.name === record.token);
  if (!token)
    throw failAt(journalPath, `entry ${record.seq} revokes token '${record.token}', which does not exist`);
  token.revokedAt = Date.parse(record.at);
}

/** Rebuilds the store from a snapshot and the journal records after it. */
function restoreStore(
  snapshot: Snapshot,
  records: JournalRecord[],
  path: string,
  journalPath: string,
): SandboxStore {
  const store = new SandboxStore();
  restoreOrganisations(store, snapshot, path);
  for (const stored of snapshot.envelopes) restoreEnvelope(store, stored, path);
  for (const record of records) replay(store, record, journalPath);
  store.seq = records.at(-1)?.seq ?? snapshot.seq;
  return store;
}

export class StateFile {
  readonly journalPath: string;
  readonly lockPath: string;
  readonly #compactAfterBytes: number;
  readonly #fileSystem: StateFileSystem;
  #journal: FileHandle | undefined;
  #journalBytes = 0;
  #queue: string[] = [];
  #waiters: Waiter[] = [];
  #writing: Promise<void> | undefined;
  #failure: SandboxError | undefined;
  #closing: Promise<void> | undefined;
  readonly #lost = new AbortController();

  readonly path: string;
  readonly store: SandboxStore;
  /** True when the data came from an existing state file. */
  readonly restored: boolean;
  readonly fingerprint: string;

  private constructor(
    loaded: { path: string; store: SandboxStore; restored: boolean; fingerprint: string },
    options: OpenStateOptions,
  ) {
    const { path } = loaded;
    this.path = path;
    this.store = loaded.store;
    this.restored = loaded.restored;
    this.fingerprint = loaded.fingerprint;
    this.journalPath = `${path}.journal`;
    this.lockPath = `${path}.lock`;
    this.#compactAfterBytes = options.compactAfterBytes ?? 64 * 1024 * 1024;
    this.#fileSystem = options.fileSystem;
    const lockLost = options.fileSystem.lockLost(this.lockPath);
    const onLost = () => this.#lost.abort(this.#lockLostError());
    if (lockLost?.aborted) onLost();
    else lockLost?.addEventListener('abort', onLost, { once: true });
  }

  /**
   * Aborted when another sandbox took the state file over (this one stood still past its lock's
   * lease): nothing more is written; the reason is a SandboxError `state_lock_lost`.
   */
  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  #lockLostError(): SandboxError {
    return new SandboxError(
      'state_lock_lost',
      `Another sandbox took over the state file ${this.path} while this one stood still (its lock ${this.lockPath} was not renewed in time): this sandbox stopped serving and saved nothing more.`,
      { file: this.path },
    );
  }

  /** Whether the state file is still this sandbox's at this moment; false once it was taken over. */
  async #stillHeld(): Promise<boolean> {
    const held = this.#fileSystem.lockHeld(this.lockPath);
    if (held === true || (await held)) return true;
    if (!this.#lost.signal.aborted) this.#lost.abort(this.#lockLostError());
    return false;
  }

  /** Locks, loads (or creates) the state file and starts journaling the store's changes. */
  static async open(options: OpenStateOptions): Promise<StateFile> {
    const path = resolve(options.path);
    const folder = dirname(path);
    const folderStat = await stat(folder).catch(() => undefined);
    if (!folderStat?.isDirectory()) {
      throw new SandboxError(
        'state_folder_missing',
        `The folder of the state file does not exist: ${folder}.`,
        {
          hint: 'Create it, or pick another path for the state file.',
        },
      );
    }
    const lockPath = `${path}.lock`;
    await acquireStateLock(options.fileSystem, lockPath, path);
    try {
      const state = await StateFile.#load(path, options);
      await state.#startJournal();
      return state;
    } catch (error) {
      await options.fileSystem.releaseLock(lockPath);
      throw error;
    }
  }

  static async #load(path: string, options: OpenStateOptions): Promise<StateFile> {
    const journalPath = `${path}.journal`;
    const fingerprint = seedFingerprint(options.seed);
    const snapshotText = await readIfExists(path, options.fileSystem);
    const journalText = await readIfExists(journalPath, options.fileSystem);
    // A missing or empty file (`--state "$(mktemp)"`) starts a new state; a crash never leaves an empty one.
    if (snapshotText === undefined || snapshotText.trim() === '') {
      if (journalText !== undefined && journalText !== '') {
        throw corrupt(`Found the journal ${journalPath} but not the state file ${path} it belongs to.`);
      }
      const store = SandboxStore.fromSeed(options.seed, options.now);
      return new StateFile({ path, store, restored: false, fingerprint }, options);
    }
    const snapshot = parseSnapshot(path, snapshotText);
    if (options.seedIsExplicit && snapshot.seed_fingerprint !== fingerprint) {
      throw new SandboxError(
        'state_seed_mismatch',
        `The state file ${path} was made from a different seed than the one given.`,
        {
          hint: 'Start without a seed to use the organisations kept in the state file, or use another state file for this seed.',
          file: path,
        },
      );
    }
    const records =
      journalText === undefined ? [] : parseJournal(journalPath, journalText, snapshot.seq, options.warn);
    const store = restoreStore(snapshot, records, path, journalPath);
    return new StateFile({ path, store, restored: true, fingerprint: snapshot.seed_fingerprint }, options);
  }

  /** Folds everything into a fresh snapshot, empties the journal and journals every later change. */
  async #startJournal(): Promise<void> {
    await writeFileAtomic(this.path, snapshotText(this.store, this.fingerprint), this.#fileSystem);
    this.#journal = await this.#fileSystem.openFile(this.journalPath, 'append');
    await this.#journal.truncate(0);
    this.store.onChange = (change) => this.#append(journalLine(change));
  }

  #append(line: string): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closing)
      return Promise.reject(
        new SandboxError('state_io', 'The sandbox is stopping; the change was not saved.'),
      );
    this.#queue.push(line);
    const written = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    // Wait for the end of this event-loop turn, so every change made in it goes out in one write.
    this.#writing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#drain());
    return written;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.#failure) {
        const lines = this.#queue;
        const waiters = this.#waiters;
        this.#queue = [];
        this.#waiters = [];
        try {
          // Never a write into a state file another sandbox took over: answered 500, never 200.
          if (!(await this.#stillHeld())) throw this.#lost.signal.reason;
          if (this.#journalBytes >= this.#compactAfterBytes) {
            // The snapshot holds every change applied so far, the queued ones included.
            await this.#compact();
          } else {
            const data = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
            await this.#appendAll(data);
            this.#journalBytes += data.length;
          }
          for (const waiter of waiters) waiter.resolve();
        } catch (error) {
          this.#failure =
            error instanceof SandboxError
              ? error
              : new SandboxError(
                  'state_io',
                  `Cannot write the state file ${this.path}: ${(error as Error).message}.`,
                  { cause: error },
                );
          for (const waiter of [...waiters, ...this.#waiters]) waiter.reject(this.#failure);
          this.#waiters = [];
          this.#queue = [];
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }

  /**
   * Appends all of `data`. A write may take only part of it (a nearly full disk): the rest is
   * written, and if that fails the journal is cut back to its last whole entry before the error goes
   * on (the requests waiting for this write then fail with 500, never 200).
   */
  async #appendAll(data: Buffer): Promise<void> {
    const journal = this.#journal as FileHandle;
    let offset = 0;
    try {
      while (offset < data.length) {
        const { bytesWritten } = await journal.write(data, offset, data.length - offset);
        if (bytesWritten <= 0) throw new Error('the journal took no bytes (is the disk full?)');
        offset += bytesWritten;
      }
    } catch (error) {
      if (offset > 0) await journal.truncate(this.#journalBytes).catch(() => {});
      throw error;
    }
  }

  async #compact(): Promise<void> {
    await writeFileAtomic(this.path, snapshotText(this.store, this.fingerprint), this.#fileSystem);
    await (this.#journal as FileHandle).truncate(0);
    this.#journalBytes = 0;
  }

  /** The write error that stopped saving, if any. */
  get failure(): SandboxError | undefined {
    return this.#failure;
  }

  /** Writes what is pending, folds the journal into the snapshot, removes the journal and the lock. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      while (this.#writing) await this.#writing;
      try {
        if (this.#lost.signal.aborted) throw this.#lost.signal.reason;
        if (this.#failure) throw this.#failure;
        if (!(await this.#stillHeld())) throw this.#lost.signal.reason;
        await this.#compact();
        await this.#journal?.close();
        this.#journal = undefined;
        await rm(this.journalPath, { force: true });
      } finally {
        await this.#journal?.close().catch(() => {});
        await this.#fileSystem.releaseLock(this.lockPath);
      }
    })();
    return this.#closing;
  }
}
