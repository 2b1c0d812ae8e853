// The intent journal, `<output>.pending`: which requests may have left, so that a resumed run can
// tell "never sent" from "sent, answer lost" after any crash. It holds three kinds of line:
//
//   {"boot":"…"}                                     which boot of the machine wrote it (first line)
//   {"line":12,"fingerprint":"…","offset":345,"reserved":true}
//                                                    synced before the record may be sent
//   {"sent":12,"offset":400}                         written (not synced) just before it is sent
//
// A process that is killed loses nothing it wrote, so after a crash in the same boot the `sent`
// lines say exactly which records left. A power cut or a system crash can lose unsynced lines;
// after a reboot only the synced reservations are trusted, so every reserved record without a
// newer result counts as unknown. Reservations are made a few dozen records ahead, so that one
// sync covers many of them. The lines' formats are zod schemas in formats.ts.
import { constants, readFileSync } from 'node:fs';
import { uptime } from 'node:os';
import type { Env } from '../context.js';
import { UsageError } from '../errors.js';
import { isTornLine, readLinesKnowingLast } from '../fs/lines.js';
import { openRegularFile } from '../fs/regular-file.js';
import { DurableAppender } from './durable-file.js';
import { formatJournalHeader, formatReservation, formatSentNote, parseJournalEntry } from './formats.js';
import type { PreviousResults } from './previous-results.js';

export interface SentRecord {
  line: number;
  fingerprint: string;
}

export interface PendingIntent {
  line: number;
  fingerprint: string | undefined;
  /** The size of --output when this was written: a result for the line after it is newer. */
  offset: number;
}

export interface JournalContents {
  boot: string | null;
  reserved: PendingIntent[];
  sent: PendingIntent[];
}

/**
 * What identifies this boot of the machine: Linux's boot id, elsewhere the boot time to the second.
 * Anything that differs after a reboot will do; a mismatch only makes a resume more careful.
 */
export function currentBoot(): string {
  try {
    return `linux:${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}`;
  } catch {
    return `uptime:${Math.round(Date.now() / 1000 - uptime())}`;
  }
}

function sameBoot(written: string | null, now: string): boolean {
  if (!written) return false;
  if (written === now) return true;
  // The boot time computed from the uptime can wobble by a second or so.
  const [kind, value] = written.split(':');
  const [nowKind, nowValue] = now.split(':');
  return kind === 'uptime' && nowKind === 'uptime' && Math.abs(Number(value) - Number(nowValue)) <= 2;
}

export class IntentJournal {
  private constructor(private readonly file: DurableAppender) {}

  /**
   * Starts an empty journal for this run (mode 0600: it names records of the input). With the
   * run's `results` file, the journal never gets ahead of it: the results of a turn of the event
   * loop are written before the notes of the requests that took their workers' places, so a kill
   * between the two writes leaves no more requests noted sent and unanswered than were in flight;
   * and once the results cannot be stored, no note is written and no request leaves.
   */
  static async create(
    path: string,
    {
      boot = currentBoot(),
      results,
      env,
    }: { boot?: string; results?: DurableAppender<unknown>; env?: Env } = {},
  ): Promise<IntentJournal> {
    const file = DurableAppender.open(path, {
      mode: 0o600,
      truncate: true,
      gather: true,
      behind: results,
      env,
    });
    await file.append(`${formatJournalHeader({ boot })}\n`);
    return new IntentJournal(file);
  }

  /** Resolves once the reservation of `records` is on disk: only then may they be sent. */
  reserve(records: readonly SentRecord[], offset: number): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    let text = '';
    for (const record of records) {
      text += `${formatReservation({ line: record.line, fingerprint: record.fingerprint, offset, reserved: true })}\n`;
    }
    return this.file.append(text);
  }

  /**
   * Notes that the request for `line` is about to leave; it may leave once the promise resolves,
   * and must not if it rejects (the note could not be written: a full disk). The notes of one turn
   * of the event loop go out in one write, not one each: a batch sends thousands a second, and each
   * write(2) to a journalled file system costs more than the rest of the note.
   */
  sent(line: number, offset: number): Promise<void> {
    try {
      this.file.write(`${formatSentNote({ sent: line, offset })}\n`);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.file.written();
  }

  close(): Promise<void> {
    return this.file.close();
  }
}

/**
 * Reads a journal through its schemas. A last line that is not JSON was torn by a kill or a power
 * cut: it came after the last sync, and whatever it announced was not yet relied on (a record is
 * sent only once its reservation is synced). Any other line that is not an entry (not JSON before
 * other lines, or JSON that does not match) is reported with its number: a resume that skipped it
 * could send a record it noted as sent a second time.
 */
export async function readJournal(path: string): Promise<JournalContents> {
  const contents: JournalContents = { boot: null, reserved: [], sent: [] };
  const fingerprints = new Map<number, string | undefined>();
  try {
    // A regular file, decided at the open (a named pipe put there is refused, never waited on).
    const { handle } = await openRegularFile(path, constants.O_RDONLY);
    const lines = readLinesKnowingLast(handle.createReadStream());
    let lineNumber = 0;
    for await (const { text, last } of lines) {
      lineNumber++;
      if (isTornLine(text, last)) continue;
      const parsed = parseJournalEntry(text);
      if (!parsed.ok) throw badJournalLine(path, lineNumber, parsed.problem);
      const { value } = parsed;
      switch (value.kind) {
        case 'header':
          contents.boot = value.entry.boot;
          break;
        case 'sent':
          contents.sent.push({
            line: value.entry.sent,
            fingerprint: fingerprints.get(value.entry.sent),
            offset: value.entry.offset,
          });
          break;
        case 'reservation':
        case 'legacy': {
          const { line, fingerprint, offset } = value.entry;
          fingerprints.set(line, fingerprint);
          const intent = { line, fingerprint, offset };
          contents.reserved.push(intent);
          // An intent without "reserved" (the earlier format) was synced before sending: it may have left.
          if (value.kind === 'legacy') contents.sent.push(intent);
          break;
        }
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return contents;
}

function badJournalLine(path: string, lineNumber: number, problem: string): UsageError {
  return new UsageError(
    `${path}: line ${lineNumber} is not an entry of esign's batch journal (${problem}).`,
    {
      hint: 'The journal says which requests an earlier run may have sent; a resume needs it as that run left it. Restore it, or check those records in the dashboard before moving it away.',
    },
  );
}

/**
 * Intents that no result answered: each is a request that may or may not have created an envelope.
 * In the boot that wrote the journal (`exact`), those marked sent; after a reboot, every reservation.
 */
export function unansweredIntents(
  journal: JournalContents,
  previous: PreviousResults,
  boot = currentBoot(),
): { intents: PendingIntent[]; exact: boolean } {
  const exact = sameBoot(journal.boot, boot);
  const seen = new Set<number>();
  const intents = (exact ? journal.sent : journal.reserved).filter((intent) => {
    if (seen.has(intent.line)) return false;
    const result = previous.get(intent.line);
    const answered = result && (result.state === 'created' || result.offset >= intent.offset);
    if (answered) return false;
    seen.add(intent.line);
    return true;
  });
  return { intents, exact };
}
