// Bypass cases on real files: symlinked operands, `..` after a symlinked directory, unresolvable paths.
// The test makes the files (see test/bypass-classes.test.ts); these commands run in its work folder.
import type { Expected } from "../../support/shell-corpus.js";

export const SYMLINKS: [string, Expected][] = [
  ["cat readme.txt", "deny"],
  ["head -n1 readme.txt", "deny"],
  ["grep -e KEY readme.txt", "deny"],
  ["cat docs/../id_rsa", "deny"],
  ["head docs/../id_rsa", "deny"],
  ["cd docs && cat ../id_rsa", "deny"],
  ["cd -P docs/.. && cat id_rsa", "deny"],
  ["cat cfg/id_rsa", "deny"],
  ["sed -n p cfg/id_rsa", "deny"],
  ["cp cfg/id_rsa /tmp/k", "deny"],
  ["echo x > readme.txt", "deny"],
  ["echo k >> cfg/authorized_keys", "deny"],
  ["tee docs/../authorized_keys < notes.md", "deny"],
  ["sort docs/../id_rsa", "not-allow"],
  ["cut -c1- readme.txt", "not-allow"],
  ["cat $(echo readme.txt)", "not-allow"],
];
/** "any": the path is odd but harmless (bash makes it empty or a no-op); only a throw is wrong. */
export const robustCases = (fxHome: string): [string, Expected | "any"][] => [
  [`cat ${"a/".repeat(3000)}x`, "not-allow"],
  [`echo x > ${"b/".repeat(3000)}y`, "not-allow"],
  ["cat loop-a/x", "not-allow"],
  ["cat loop-a", "not-allow"],
  ["echo x > loop-a", "not-allow"],
  ["cd loop-a && cat x", "not-allow"],
  ["cat notes.md/x", "not-allow"],
  ["echo x > notes.md/x", "not-allow"],
  ["cd notes.md && ls", "any"],
  [`cd ${"../".repeat(500)} && cat ${fxHome.slice(1)}/.ssh/id_rsa`, "deny"],
  ["cat ./\u0000x", "not-allow"],
  [`cat ${"x".repeat(5000)}`, "not-allow"],
  ["cat /proc/self/root/proc/self/root/proc/self/root/etc/hostname", "not-allow"],
  ["cat $'\\x00'", "any"],
  ["cd '' && cat x", "any"],
  ["echo x > ''", "any"],
  [`cat ${"loop-a/".repeat(50)}x`, "not-allow"],
  ["ln -s loop-a q && cat q/x", "not-allow"],
];
