/** On-disk cache of compiled images, keyed by sha256(source + options + compiler version). */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CacheKeyInput {
  backend: "nvrtc" | "nvcc";
  compilerVersion: string;
  source: string;
  /** The complete option list handed to the compiler (architecture included). */
  options: readonly string[];
  output: "cubin" | "ptx";
}

const KEY_VERSION = 1;

export function cacheKey(input: CacheKeyInput): string {
  const h = createHash("sha256");
  h.update(
    JSON.stringify({
      v: KEY_VERSION,
      backend: input.backend,
      compiler: input.compilerVersion,
      output: input.output,
      options: input.options,
    }),
  );
  h.update("\0");
  h.update(input.source);
  return h.digest("hex");
}

/** `$TESSERA_CACHE_DIR`, else `<os.tmpdir()>/tessera-cache/cuda`. */
export function defaultCacheDir(): string {
  const env = process.env.TESSERA_CACHE_DIR;
  if (env !== undefined && env.length > 0) return env;
  return join(tmpdir(), "tessera-cache", "cuda");
}

export interface CacheEntry {
  image: Uint8Array;
  log: string;
}

export class CompileCache {
  constructor(readonly dir: string = defaultCacheDir()) {}

  #paths(key: string): { image: string; log: string } {
    return { image: join(this.dir, `${key}.bin`), log: join(this.dir, `${key}.log`) };
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const p = this.#paths(key);
    try {
      const [image, log] = await Promise.all([readFile(p.image), readFile(p.log, "utf8")]);
      return { image: new Uint8Array(image.buffer, image.byteOffset, image.byteLength), log };
    } catch {
      return undefined;
    }
  }

  /** Writes atomically (temp file + rename), so concurrent compilers never see half an entry. */
  async put(key: string, entry: CacheEntry): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const p = this.#paths(key);
    const tag = `${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    await writeFile(`${p.log}.${tag}`, entry.log);
    await rename(`${p.log}.${tag}`, p.log);
    await writeFile(`${p.image}.${tag}`, entry.image);
    await rename(`${p.image}.${tag}`, p.image);
  }
}
