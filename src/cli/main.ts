#!/usr/bin/env node
import { runCli } from './program.js';

// A reader that stops early (`telform state list | head -1`) closes the pipe: what is left to print
// has nobody to read it. Later writes are dropped and the command finishes what it was doing (an
// apply must still record what it did) without an EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

process.exitCode = await runCli(process.argv);
