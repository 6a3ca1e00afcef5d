// Temporary files and folders that must not outlive the command that made them: removed when the
// process exits, and when it is ended by SIGINT, SIGTERM or SIGHUP (which skip the `exit` event).
// Only SIGKILL leaves one behind.
import { rmSync } from 'node:fs';

const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const pending = new Set<string>();
let installed = false;

function removeAll(): void {
  for (const path of pending) rmSync(path, { recursive: true, force: true });
  pending.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  removeAll();
  // When nothing else listens, the process ends by the signal as it would have without us (a shell
  // sees 130 or 143); a command with its own handlers (an apply's) decides for itself.
  if (process.listenerCount(signal) === 1) {
    uninstall();
    process.kill(process.pid, signal);
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', removeAll);
  for (const signal of signals) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', removeAll);
  for (const signal of signals) process.off(signal, onSignal);
}

/**
 * Removes `path` (a file, or a folder and all it holds) if the process ends before `release` is
 * called; `release` is called once the path is gone or has become permanent (renamed into place).
 */
export function removeOnExit(path: string): () => void {
  pending.add(path);
  install();
  return () => {
    pending.delete(path);
    if (pending.size === 0) uninstall();
  };
}
