/**
 * The device bundle's Redis (issue 33: it broke on a fresh GPU host): the library closure copies
 * the dependencies of the libraries it copies (jemalloc's libstdc++), the bundled server starts
 * with none of the host's library paths, and the launcher unpacks each tarball into a folder of
 * its own hash, so a changed bundle never runs a stale unpacked copy.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findRedisServer } from "@tessera/queue/testing";
import { afterAll, describe, expect, it } from "vitest";

const scripts = fileURLToPath(new URL("../scripts/", import.meta.url));
const CLOSURE = join(scripts, "copy-lib-closure.sh");
const LAUNCHER = join(scripts, "redis-launcher.sh");
const LOADER = "/lib64/ld-linux-x86-64.so.2";
const feasible = process.platform === "linux" && process.arch === "x64" && existsSync(LOADER) && spawnSync("ldd", ["--version"]).status === 0;
const scratch = mkdtempSync(join(tmpdir(), "tessera-bundle-redis-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function closure(binary: string, libdir: string): void {
  execFileSync("bash", [CLOSURE, binary, libdir], { stdio: "pipe" });
}

/** What the bundled loader resolves outside `libdir` (the vDSO aside): empty for a self-contained bundle. */
function resolvedOutside(binary: string, libdir: string): string[] {
  const listed = execFileSync(join(libdir, "ld-linux-x86-64.so.2"), ["--list", "--library-path", libdir, binary], { env: {}, encoding: "utf8" });
  return listed
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("linux-vdso") && !l.includes(`${libdir}/`));
}

describe.skipIf(!feasible)("the Redis bundle", () => {
  it("copies the dependencies of the libraries already copied, not only the binary's", () => {
    const dir = join(scratch, "transitive");
    mkdirSync(join(dir, "lib"), { recursive: true });
    copyFileSync("/bin/true", join(dir, "tool"));
    // As bundle-redis.sh puts libjemalloc from its .deb: a library the binary's ldd never named.
    const libstdcxx = execFileSync("bash", ["-c", "ldconfig -p | awk '/libstdc\\+\\+\\.so\\.6 .*x86-64/{print $NF; exit}'"], { encoding: "utf8" }).trim();
    copyFileSync(realpathSync(libstdcxx), join(dir, "lib", "libstdc++.so.6"));
    closure(join(dir, "tool"), join(dir, "lib"));
    const libs = readdirSync(join(dir, "lib"));
    expect(libs).toEqual(expect.arrayContaining(["ld-linux-x86-64.so.2", "libc.so.6", "libm.so.6", "libgcc_s.so.1"]));
    expect(resolvedOutside(join(dir, "lib", "libstdc++.so.6"), join(dir, "lib"))).toEqual([]);
  });

  const installed = findRedisServer();
  it.skipIf(installed === undefined)("packs a redis-server that runs with an empty library path, everything resolved inside the bundle", () => {
    const dir = join(scratch, "redis");
    mkdirSync(join(dir, "lib"), { recursive: true });
    copyFileSync(realpathSync(installed!), join(dir, "redis-server"));
    closure(join(dir, "redis-server"), join(dir, "lib"));
    expect(resolvedOutside(join(dir, "redis-server"), join(dir, "lib"))).toEqual([]);
    const version = execFileSync(
      join(dir, "lib", "ld-linux-x86-64.so.2"),
      ["--library-path", join(dir, "lib"), "--argv0", "redis-server", join(dir, "redis-server"), "--version"],
      {
        env: { LD_LIBRARY_PATH: "" },
        encoding: "utf8",
      },
    );
    expect(version).toMatch(/^Redis server v=/);
  });

  it("the launcher unpacks each tarball into a folder named by its hash: a changed bundle never runs the stale copy", () => {
    const bundle = join(scratch, "device-bundle");
    const unpackInto = join(scratch, "unpacked");
    mkdirSync(bundle, { recursive: true });
    copyFileSync(LAUNCHER, join(bundle, "redis-server.sh"));
    // Stand-ins for redis-server that show which tarball ran: echo prints its argument, basename its last part.
    const pack = (tool: string): void => {
      const stage = join(scratch, `stage-${tool}`);
      mkdirSync(join(stage, "redis", "lib"), { recursive: true });
      copyFileSync(tool, join(stage, "redis", "redis-server"));
      closure(join(stage, "redis", "redis-server"), join(stage, "redis", "lib"));
      execFileSync("tar", ["-C", stage, "-cJf", join(bundle, "redis.tar.xz"), "redis"]);
    };
    const launch = (): string =>
      execFileSync("sh", [join(bundle, "redis-server.sh"), "a/b"], { env: { PATH: "/usr/bin:/bin", TESSERA_REDIS_DIR: unpackInto }, encoding: "utf8" }).trim();
    pack("/bin/echo");
    expect(launch()).toBe("a/b");
    expect(launch()).toBe("a/b");
    pack(realpathSync(execFileSync("sh", ["-c", "command -v basename"], { encoding: "utf8" }).trim()));
    expect(launch()).toBe("b");
    const folders = readdirSync(unpackInto).filter((n) => !n.startsWith("."));
    expect(folders).toHaveLength(2);
    for (const f of folders) expect(f).toMatch(/^[0-9a-f]{16}$/);
  });
});

if (!feasible) describe("the Redis bundle", () => it.skip("needs Linux on x86-64 with ldd", () => {}));
