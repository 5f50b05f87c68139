#!/usr/bin/env node
// Bundle a TypeScript bot (or its tests) into one self-contained JavaScript file per entry.
//
//   node sdk/typescript/scripts/bundle.mjs [--outdir DIR] [--no-check] ENTRY.ts...
//
// Each ENTRY is bundled with the SDK (from its sources, sdk/typescript/src), its dependencies (@grpc/grpc-js, @grpc/proto-loader, protobufjs) and the protocol's descriptor into
// DIR/<entry>.js (default DIR: dist/ beside the first entry), for Node 20, as CommonJS. The result
// needs nothing but `node` at run time: no node_modules, no .proto files, no writes, so it runs
// from a read-only bot directory and in the Docker sandbox. `import ... from "arena-sdk"` in an
// entry resolves to this SDK.
//
// Unless --no-check, the entries are type-checked first with the SDK's TypeScript compiler (with
// the compiler options of the tsconfig.json beside the first entry when there is one), with
// "arena-sdk" mapped to the SDK's sources.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const SDK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SDK_ENTRY = path.join(SDK, "src", "index.ts");

function fail(message) {
  console.error(`bundle: ${message}`);
  process.exit(1);
}

const args = process.argv.slice(2);
let outdir = null;
let check = true;
const entries = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--outdir") outdir = path.resolve(args[++i]);
  else if (args[i] === "--no-check") check = false;
  else if (args[i].startsWith("-")) fail(`unknown option ${args[i]}`);
  else entries.push(path.resolve(args[i]));
}
if (entries.length === 0) fail("usage: node bundle.mjs [--outdir DIR] [--no-check] ENTRY.ts...");
for (const entry of entries) if (!fs.existsSync(entry)) fail(`${entry}: no such file`);
if (!fs.existsSync(path.join(SDK, "node_modules", "esbuild"))) fail(`the SDK's packages are not installed: run \`npm ci\` in ${SDK}`);
outdir ??= path.join(path.dirname(entries[0]), "dist");

if (check) {
  // A throw-away tsconfig: the project's options (if any), the entries, and "arena-sdk" mapped to the SDK.
  const project = path.join(path.dirname(entries[0]), "tsconfig.json");
  const defaults = { target: "es2022", lib: ["es2022"], module: "nodenext", moduleResolution: "nodenext", strict: true, skipLibCheck: true };
  const config = {
    ...(fs.existsSync(project) ? { extends: project } : {}),
    compilerOptions: {
      ...(fs.existsSync(project) ? {} : defaults),
      noEmit: true,
      types: ["node"],
      typeRoots: [path.join(SDK, "node_modules", "@types")],
      paths: { "arena-sdk": [SDK_ENTRY] },
    },
    files: entries,
  };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arena-bundle-"));
  try {
    fs.writeFileSync(path.join(tmp, "tsconfig.json"), JSON.stringify(config, null, 1));
    const tsc = path.join(SDK, "node_modules", "typescript", "bin", "tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", path.join(tmp, "tsconfig.json")], { stdio: "inherit" });
    if (result.status !== 0) fail("type errors (see above); fix them, or bundle with --no-check");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const esbuild = require("esbuild");
const arenaSdk = {
  name: "arena-sdk",
  setup(build) {
    build.onResolve({ filter: /^arena-sdk$/ }, () => ({ path: SDK_ENTRY }));
  },
};
try {
  await esbuild.build({
    entryPoints: entries,
    outdir,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    sourcemap: true,
    // Packages resolve from the SDK's node_modules, wherever the bot lives.
    nodePaths: [path.join(SDK, "node_modules")],
    plugins: [arenaSdk],
    logLevel: "warning",
  });
} catch {
  fail("esbuild failed (see above)");
}
// The source maps name the bot's own files relative to the map, so that they are found wherever the bot is copied to
// (the ladder's store, the sandbox's /bot), and the SDK's and its packages' files by absolute path. Relative, those
// went wrong once the bot was copied to another depth: a stack in a ladder match's log named
// <ladder data>/work/sdk/typescript/src/driver.ts, a file nowhere.
const home = path.dirname(entries[0]);
for (const entry of entries) {
  const map = path.join(outdir, path.basename(entry).replace(/\.[cm]?tsx?$/, ".js.map"));
  if (!fs.existsSync(map)) continue;
  const data = JSON.parse(fs.readFileSync(map, "utf8"));
  const base = path.resolve(outdir, data.sourceRoot ?? "");
  data.sources = data.sources.map((source) => {
    const file = path.resolve(base, source);
    const inside = !path.relative(home, file).startsWith("..");
    return inside ? path.relative(outdir, file).split(path.sep).join("/") : file;
  });
  delete data.sourceRoot;
  fs.writeFileSync(map, JSON.stringify(data));
}
for (const entry of entries) {
  console.log(`bundled ${path.relative(process.cwd(), entry) || entry} -> ${path.relative(process.cwd(), path.join(outdir, path.basename(entry).replace(/\.[cm]?tsx?$/, ".js")))}`);
}
