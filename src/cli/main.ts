#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// The CLI is bundled (scripts/bundle.mjs). Under --debug a stack trace should name the source files
// and lines, so the source maps are switched on before the rest of the CLI loads: Node maps only the
// modules loaded after that.
if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true);

// A command lives for a second or so, and V8's defaults are tuned for long-running programs:
// - its optimising compiler starts on much of telform's code, and that compiling (on another thread,
//   which on a small machine competes with everything else) costs more CPU than the optimised code
//   gives back before the process exits; a higher threshold still optimises what is really hot (a
//   long apply, many accounts in one run). A converged plan of 5,000 resources: 1.3 s of CPU to 0.8 s.
// - WebAssembly (the HTTP parser of Node's fetch, which serve's webhooks and `telform test` use) is
//   compiled twice, the second time optimised (about 100 ms of CPU and 25 MB); its baseline code is fast enough.
// The emulator is a long-running server and keeps V8's defaults. Set before the rest of the CLI loads.
if (!process.argv.slice(2).includes('emulator')) setFlagsFromString('--interrupt-budget=1000000 --liftoff-only');
const { runCli } = await import('./program.js');

// A reader that stops early (`telform state list | head -1`) closes the pipe: what is left to print
// has nobody to read it. Later writes are dropped and the command finishes what it was doing (an
// apply must still record what it did) without an EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

process.exitCode = await runCli(process.argv);
