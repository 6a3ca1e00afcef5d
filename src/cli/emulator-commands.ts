// `telform emulator` (run an emulator) with its subcommand `request` (one request to the embedded one).
import type { Command } from 'commander';
import { emulatorCommand } from './emulator.js';
import { emulatorRequestCommand } from './emulator-request.js';

export function emulatorCommands(): Command {
  return emulatorCommand().addCommand(emulatorRequestCommand());
}
