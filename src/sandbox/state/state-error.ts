import { CliError, type CliErrorOptions, ExitCode } from '../../errors.js';

/**
 * The --state file cannot be used: corrupt, in use by another sandbox, or not writable. A corrupt
 * file is never replaced: the user decides what to do with it. Exit 2, like any bad input file.
 */
export class StateFileError extends CliError {
  constructor(message: string, options?: CliErrorOptions) {
    super(message, ExitCode.usage, 'state_file', options);
  }
}
