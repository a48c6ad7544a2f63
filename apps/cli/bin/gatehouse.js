#!/usr/bin/env node
import { main } from "../dist/main.js";

// A reader that stops early (`gatehouse --help | head`) is not an error.
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});
process.exitCode = await main(process.argv.slice(2));
