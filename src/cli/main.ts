#!/usr/bin/env node
// The CLI is bundled (scripts/bundle.mjs). Under --debug a stack trace should name the source files
// and lines, so the source maps are switched on before the rest of the CLI loads: Node maps only the
// modules loaded after that.
if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true);
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
