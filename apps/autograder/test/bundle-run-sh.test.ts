/**
 * The device bundle's run.sh started several times at once (one tuning run per GPU), each
 * unpacking the bundled Node: none may replace the binary another one is already running from.
 * Regression: each moved its own copy over the name, the first process went on from a deleted
 * file, and every child it spawned from `process.execPath` failed with ENOENT (a whole 256-trial
 * tuning run recorded as failed trials). A stand-in "node" (a shell script, xz-compressed as
 * bundle-gpu.ts compresses the real one) notes its file's inode, waits, and fails if the name
 * now holds another file.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RUN_SH } from "../scripts/bundle-run-sh.js";

// .ci/run installs xz; a machine without it skips this test (bundle:gpu needs xz too).
const hasXz = spawnSync("xz", ["--version"]).status === 0;
const scratch = mkdtempSync(join(os.tmpdir(), "tessera-run-sh-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A bundle whose node.xz is a script that fails when its own file is replaced while it runs. */
function fakeBundle(): string {
  const dir = mkdtempSync(join(scratch, "bundle-"));
  // Padding makes unpacking take long enough for the starts below to overlap it.
  const padding = `# ${"x".repeat(4000)}\n`.repeat(6000);
  const fakeNode = `#!/bin/sh\nborn=$(stat -c %i "$0")\nsleep 1\nnow=$(stat -c %i "$0" 2>/dev/null || echo gone)\nif [ "$born" != "$now" ]; then echo "replaced while running: $born -> $now"; exit 3; fi\necho "ran $1"\n${padding}`;
  writeFileSync(join(dir, "node.plain"), fakeNode);
  const xz = spawnSync("sh", ["-c", `xz -0 -c "${join(dir, "node.plain")}" > "${join(dir, "node.xz")}" && rm "${join(dir, "node.plain")}"`]);
  expect(xz.status).toBe(0);
  writeFileSync(join(dir, "node.version"), `vtest-${process.pid}-${Date.now()}\n`);
  writeFileSync(join(dir, "run.sh"), RUN_SH);
  chmodSync(join(dir, "run.sh"), 0o755);
  return dir;
}

function runSh(bundle: string, tmpdir: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", [join(bundle, "run.sh"), "entry"], { env: { ...process.env, TMPDIR: tmpdir, TESSERA_NODE: "" } });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("close", (code) => resolve({ code, out }));
  });
}

describe.skipIf(!hasXz)("the device bundle's run.sh", () => {
  it("started several times at once, unpacks node once for all of them and never replaces a running binary", async () => {
    const bundle = fakeBundle();
    const tmpdir = mkdtempSync(join(scratch, "tmp-"));
    const runs: Promise<{ code: number | null; out: string }>[] = [];
    for (let k = 0; k < 6; k++) {
      runs.push(runSh(bundle, tmpdir));
      await new Promise((r) => setTimeout(r, 15));
    }
    const results = await Promise.all(runs);
    for (const r of results) {
      expect(r.out).toContain(`ran ${join(bundle, "entry.mjs")}`);
      expect(r.code).toBe(0);
    }
    // One unpacked binary and no temporary copies left behind.
    const left = spawnSync("ls", [tmpdir], { encoding: "utf8" }).stdout.trim().split("\n");
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^tessera-node-vtest-/);
  }, 60_000);
});
