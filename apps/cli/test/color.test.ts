import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printTVMScript, vectorAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { type CliIO, runCli } from "../src/index.js";
import { colorEnabled } from "../src/color.js";

const file = join(mkdtempSync(join(tmpdir(), "tessera-color-")), "vadd.py");
writeFileSync(file, printTVMScript(vectorAdd(8).func, { funcName: "vadd" }));
const ANSI = /\x1b\[/;

function terminal(env: Record<string, string>, isTTY: boolean): CliIO & { out: string } {
  const io = { out: "", stdout: (t: string) => void (io.out += t), stderr: () => {}, stdoutIsTTY: isTTY, stdoutColumns: isTTY ? 100 : undefined, env };
  return io;
}

describe("colour follows the terminal, NO_COLOR and FORCE_COLOR", () => {
  it("the policy, case by case", () => {
    const io = (env: Record<string, string>, isTTY: boolean) => terminal(env, isTTY);
    expect(colorEnabled(io({}, true))).toBe(true);
    expect(colorEnabled(io({}, false))).toBe(false);
    expect(colorEnabled(io({ TERM: "dumb" }, true))).toBe(false);
    expect(colorEnabled(io({ NO_COLOR: "1" }, true))).toBe(false);
    expect(colorEnabled(io({ NO_COLOR: "" }, true))).toBe(true); // an empty NO_COLOR does not count
    expect(colorEnabled(io({ NO_COLOR: "1" }, true), "always")).toBe(false); // --color does not override NO_COLOR
    expect(colorEnabled(io({ FORCE_COLOR: "1" }, false))).toBe(true);
    expect(colorEnabled(io({ FORCE_COLOR: "1", NO_COLOR: "1" }, false))).toBe(true);
    expect(colorEnabled(io({ FORCE_COLOR: "0" }, true))).toBe(false);
    expect(colorEnabled(io({ FORCE_COLOR: "false" }, true), "always")).toBe(false);
    expect(colorEnabled(io({}, false), "always")).toBe(true);
    expect(colorEnabled(io({}, true), "never")).toBe(false);
  });

  it("tessera print colours on a terminal, not in a pipe", async () => {
    const tty = terminal({}, true);
    expect(await runCli(["print", file], tty)).toBe(0);
    expect(tty.out).toMatch(ANSI);
    const pipe = terminal({}, false);
    expect(await runCli(["print", file], pipe)).toBe(0);
    expect(pipe.out).not.toMatch(ANSI);
  });

  it("tessera print --color follows NO_COLOR (regression: it ignored it); FORCE_COLOR colours a pipe", async () => {
    const noColor = terminal({ NO_COLOR: "1" }, true);
    expect(await runCli(["print", file, "--color"], noColor)).toBe(0);
    expect(noColor.out).not.toMatch(ANSI);
    const forced = terminal({ FORCE_COLOR: "1" }, false);
    expect(await runCli(["print", file], forced)).toBe(0);
    expect(forced.out).toMatch(ANSI);
    const never = terminal({}, true);
    expect(await runCli(["print", file, "--no-color"], never)).toBe(0);
    expect(never.out).not.toMatch(ANSI);
  });

  it("help headings are bold on a terminal, plain with NO_COLOR", async () => {
    const tty = terminal({}, true);
    expect(await runCli(["--help"], tty)).toBe(0);
    expect(tty.out).toContain("\x1b[1mCommands:");
    const plain = terminal({ NO_COLOR: "1" }, true);
    expect(await runCli(["--help"], plain)).toBe(0);
    expect(plain.out).not.toMatch(ANSI);
  });
});
