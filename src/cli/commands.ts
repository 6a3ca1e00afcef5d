import type { Command } from 'commander';
import { applyCommand } from './apply.js';
import { driftCommand } from './drift.js';
import { emulatorCommand } from './emulator.js';
import { importCommand } from './import.js';
import { planCommand } from './plan.js';
import { stateCommand } from './state.js';
import { validateCommand } from './validate.js';

/** Every command of the CLI, one file each, registered here and nowhere else. */
export const commands: ReadonlyArray<() => Command> = [validateCommand, planCommand, applyCommand, driftCommand, importCommand, stateCommand, emulatorCommand];
