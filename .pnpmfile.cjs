// pnpm hooks. isolated-vm (the grading sandbox) comes in two versions, optional dependencies of
// @tessera/autograder (see apps/autograder/src/sandbox/isolated-vm.ts): 5.0.4 for Node 20, 6.2.0
// (prebuilt addons, Node >= 22) for Node 22 and 24. 5.0.4 declares Node >= 18, but does not compile
// on 24 and is not used on 22: narrowed to Node 20 here, pnpm skips it elsewhere instead of
// compiling it (for minutes on 22, failing on 24).
module.exports = {
  hooks: {
    readPackage(pkg) {
      if (pkg.name === "isolated-vm" && pkg.version === "5.0.4") pkg.engines = { ...pkg.engines, node: "^20.0.0" };
      return pkg;
    },
  },
};
