/**
 * Whether to colour output, following https://no-color.org and the FORCE_COLOR convention
 * (as Node and chalk read it): FORCE_COLOR=0/false turns colour off and any other value turns it
 * on; else a non-empty NO_COLOR turns it off, even against --color; else --color / --no-color
 * decide; else colour on a terminal whose TERM is not "dumb". The ANSI codes come from picocolors.
 */
import picocolors from "picocolors";
import type { CliIO } from "./io.js";

export type ColorFlag = "always" | "never" | undefined;

export function colorEnabled(io: CliIO, flag: ColorFlag = undefined): boolean {
  const env = io.env ?? {};
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force.toLowerCase() !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (flag !== undefined) return flag === "always";
  return io.stdoutIsTTY === true && env.TERM !== "dumb";
}

export type Colors = ReturnType<typeof picocolors.createColors>;

/** picocolors' functions, each the identity when colour is off. */
export function colors(enabled: boolean): Colors {
  return picocolors.createColors(enabled);
}
