import { execaSync } from "execa";
import { parseTVMScript } from "/work/wt-tvmscript/packages/ir/src/parser/index.js";
import { extractCases } from "/work/wt-tvmscript/packages/ir/scripts/tvm-corpus-extract.js";
const gitDir = "/work/.mirror/apache+tvm/repo";
const git = (...a: string[]) => execaSync("git", ["--git-dir", gitDir, ...a], { maxBuffer: 64 << 20 }).stdout;
const dirs = ["tests/python/tvmscript","tests/python/tirx-base","tests/python/tirx-transform","tests/python/s_tir/transform","tests/python/codegen"];
const pat = new RegExp(process.argv[2] ?? ".");
const counts = new Map<string, number>();
for (const d of dirs) for (const f of git("ls-tree","-r","--name-only","HEAD","--",d).split("\n").filter(f=>/\/test_[^/]*\.py$/.test(f)))
  for (const c of extractCases(f, git("show", `HEAD:${f}`))) {
    try { parseTVMScript(c.text, { fileName: c.where }); } catch (e) { const m = (e as Error).message.split("\n")[0]!.replace(/^.*?error: /,""); if (pat.test(m)) { counts.set(m, (counts.get(m)??0)+1); if (process.argv[3]) console.log(c.where, (e as Error).message.split("\n").slice(0,4).join(" | ")); } }
  }
for (const [m,n] of [...counts].sort((a,b)=>b[1]-a[1])) console.log(n, m);
