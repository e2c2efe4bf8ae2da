/** `pnpm bench:queue` without a usable redis-server: one clear line, exit 1, no scratch folder left. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { prebuiltBundle } from "../../../scripts/fast-start/prebuilt.mjs";

const script = join(dirname(fileURLToPath(import.meta.url)), "..", "scripts", "queue-bench.ts");
/** The script prebuilt (scripts/fast-start/prebuilt.mjs), started with plain node rather than through tsx (about 2 CPU s a start). */
const bench = (await prebuiltBundle({ name: "test-queue-bench", entry: script })).entry;

describe("queue-bench command line", () => {
  it("names the redis-server that did not start and removes its scratch folder", () => {
    const r = spawnSync(
      process.execPath,
      ["--conditions=@tessera/source", bench, "--redis-server", "/nonexistent/redis-server", "--submissions", "1", "--workers", "1", "--simulator"],
      {
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/queue-bench: redis-server \(\/nonexistent\/redis-server\) did not start: .*ENOENT.*--redis-server PATH/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const scratch = /in (\S+)\/submissions/.exec(r.stdout)?.[1];
    expect(scratch).toBeDefined();
    expect(existsSync(scratch!)).toBe(false);
  }, 60_000);

  it("refuses --gpus with --simulator", () => {
    const r = spawnSync(process.execPath, ["--conditions=@tessera/source", bench, "--gpus", "0", "--simulator"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--gpus and --simulator exclude each other");
  }, 60_000);
});
