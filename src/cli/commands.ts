import type { Command } from 'commander';
import { emulatorCommand } from './emulator.js';
import { validateCommand } from './validate.js';

/** Every command of the CLI, one file each, registered here and nowhere else. */
export const commands: ReadonlyArray<() => Command> = [emulatorCommand, validateCommand];
