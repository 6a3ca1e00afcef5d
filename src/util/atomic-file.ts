import { chmod, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that a crash leaves either the old or the new content, never a mix: a temporary
 * file beside it, fsynced, renamed over it, then the directory fsynced so the rename survives too.
 * The state file and saved plans are written this way. `mode`: the new file's permissions (a
 * rewritten manifest keeps its own), set before the rename so the content is never readable wider.
 * A write that fails removes its temporary file; `hold` (see exit-cleanup.ts) is told the temporary
 * file's name while it exists and returns its release, so a caller can have it removed on any exit.
 */
export async function writeAtomically(
  file: string,
  content: string,
  mode?: number,
  hold: (temporary: string) => () => void = () => () => undefined,
): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const release = hold(temporary);
  try {
    // `wx`: a temporary name that exists (a link planted there, a leftover) is never written through.
    await rm(temporary, { force: true });
    const handle = await open(temporary, 'wx', mode);
    try {
      if (mode !== undefined) await chmod(temporary, mode);
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  } finally {
    release();
  }
  const directory = await open(dirname(file), 'r');
  try {
    await directory.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    await directory.close();
  }
}
