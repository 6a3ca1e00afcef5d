// Loaded with `node --import` into a benchmarked CLI run: on exit, writes the process's peak RSS and
// CPU time to the file named by BENCH_PROBE_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({
        max_rss_kb: usage.maxRSS,
        user_ms: usage.userCPUTime / 1000,
        system_ms: usage.systemCPUTime / 1000,
      }),
    );
  });
}
