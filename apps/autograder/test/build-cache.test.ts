/**
 * The on-disk cache of the sandbox's builds from source: a kept build is used only while its
 * inputs are as they were, and a build whose inputs moved under it, or a damaged record, is never
 * used.
 */
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BuiltText, cachedBuild } from "../src/sandbox/build-cache.js";

let scratch: string;
let cacheDir: string;
let sourceDir: string;
let builds: number;

/** A source file last modified an hour ago (well before any build starts). */
async function oldFile(name: string, text: string): Promise<string> {
  const path = join(sourceDir, name);
  await writeFile(path, text);
  const hourAgo = new Date(Date.now() - 3_600_000);
  await utimes(path, hourAgo, hourAgo);
  await utimes(sourceDir, hourAgo, hourAgo);
  return path;
}

/** A build that reads `inputs` and counts how often it ran. */
function builder(inputs: readonly string[], text = "built"): () => Promise<BuiltText> {
  return async () => {
    builds++;
    return { text: `${text} #${builds}`, inputs };
  };
}

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-build-cache-"));
  cacheDir = join(scratch, "cache");
  sourceDir = join(scratch, "src");
  await mkdir(sourceDir);
  builds = 0;
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("cachedBuild", () => {
  it("keeps a build for the next call while its inputs are unchanged", async () => {
    const build = builder([await oldFile("a.ts", "a")]);
    expect(await cachedBuild("x", cacheDir, build)).toBe("built #1");
    expect(await cachedBuild("x", cacheDir, build)).toBe("built #1");
    expect(builds).toBe(1);
  });

  it("builds again when an input changes", async () => {
    const a = await oldFile("a.ts", "a");
    const build = builder([a]);
    await cachedBuild("x", cacheDir, build);
    await writeFile(a, "changed");
    const past = new Date(Date.now() - 60_000);
    await utimes(a, past, past);
    expect(await cachedBuild("x", cacheDir, build)).toBe("built #2");
  });

  it("builds again when a file appears beside an input", async () => {
    const build = builder([await oldFile("a.ts", "a")]);
    await cachedBuild("x", cacheDir, build);
    await writeFile(join(sourceDir, "a.js"), "shadow");
    expect(await cachedBuild("x", cacheDir, build)).toBe("built #2");
  });

  it("does not keep a build during which an input was modified", async () => {
    const fresh = join(sourceDir, "fresh.ts");
    await writeFile(fresh, "just written");
    const build = builder([fresh]);
    await cachedBuild("x", cacheDir, build);
    expect(await cachedBuild("x", cacheDir, build)).toBe("built #2");
  });

  it("ignores a kept text that does not match its record, and a damaged record", async () => {
    const build = builder([await oldFile("a.ts", "a")]);
    await cachedBuild("x", cacheDir, build);
    await writeFile(join(cacheDir, "x.txt"), "tampered");
    expect(await cachedBuild("x", cacheDir, build)).toBe("built #2");
    await writeFile(join(cacheDir, "x.json"), "{not json");
    expect(await cachedBuild("x", cacheDir, build)).toBe("built #3");
    expect(await cachedBuild("x", cacheDir, build)).toBe("built #3");
  });

  it("always builds without a cache folder, and writes nothing", async () => {
    const build = builder([await oldFile("a.ts", "a")]);
    await cachedBuild("x", undefined, build);
    await cachedBuild("x", undefined, build);
    expect(builds).toBe(2);
    expect(await readdir(scratch)).not.toContain("cache");
  });
});
