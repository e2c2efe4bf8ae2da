/**
 * Writes a file so that readers (and a later run) see the old content or the new one, never a
 * part: the text goes to a temporary file beside it, which is then renamed over the target. Never
 * through a link: the temporary file is created new (a link in its place is refused), and the
 * rename replaces a link at the target instead of following it.
 */
import { rename, rm, writeFile } from "node:fs/promises";

let counter = 0;

export async function writeAtomically(path: string, data: string | Uint8Array): Promise<void> {
  // Unique per process and call: concurrent writers of one path never share a temporary file.
  const partial = `${path}.${process.pid}.${counter++}.partial`;
  try {
    await writeFile(partial, data, { flag: "wx" });
    await rename(partial, path);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}
