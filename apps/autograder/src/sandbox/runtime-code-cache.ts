/**
 * V8's code cache of the sandbox runtime, by the digest of the runtime's text, as a host of this
 * process produced it. V8 checks a cache against the source's length only, so a cache is given
 * only to a host running the very text it came from. A few entries at most: one runtime per process.
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";

const runtimeCodeCaches = new Map<string, Buffer>();
const MAX_RUNTIME_CODE_CACHES = 4;

/** Keeps `cache` for hosts running the runtime whose text has `digest` (exported for tests that hand a host a bad cache). */
export function keepRuntimeCodeCache(digest: string, cache: Buffer): void {
  if (runtimeCodeCaches.size >= MAX_RUNTIME_CODE_CACHES) runtimeCodeCaches.clear();
  runtimeCodeCaches.set(digest, cache);
}

/** The cache kept for the runtime whose text has `digest`, if any. */
export function runtimeCodeCache(digest: string): Buffer | undefined {
  return runtimeCodeCaches.get(digest);
}

/** Forgets the cache of `digest` (a host's V8 rejected it). */
export function dropRuntimeCodeCache(digest: string): void {
  runtimeCodeCaches.delete(digest);
}

/** Digests of runtime files by path, size and modification time (each work folder's is hashed once, not once per run). */
const runtimeDigests = new Map<string, string>();

export async function runtimeDigestOf(path: string): Promise<string> {
  const st = await stat(path);
  const key = `${path}\0${st.size}\0${st.mtimeMs}`;
  let digest = runtimeDigests.get(key);
  if (digest === undefined) {
    if (runtimeDigests.size >= 64) runtimeDigests.clear();
    digest = digestOf(await readFile(path));
    runtimeDigests.set(key, digest);
  }
  return digest;
}

export function digestOf(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}
