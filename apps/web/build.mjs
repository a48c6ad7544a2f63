// Bundles the console into dist/: index.html and content-hashed assets, served by the server.
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const here = import.meta.dirname;
const out = path.join(here, "dist");
fs.rmSync(out, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(here, "src/main.tsx")],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: path.join(out, "assets"),
  entryNames: "[name]-[hash]",
  metafile: true,
  logLevel: "warning",
});
const outputs = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
const js = outputs.find((f) => f.endsWith(".js"));
const css = outputs.find((f) => f.endsWith(".css"));
const page = fs.readFileSync(path.join(here, "src/index.html"), "utf8").replace("%CSS%", `/assets/${css}`).replace("%JS%", `/assets/${js}`);
fs.writeFileSync(path.join(out, "index.html"), page);
