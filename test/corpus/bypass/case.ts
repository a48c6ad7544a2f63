// What a bypass case is, and the short spellings the case files use.
import { SECRET, type Expected, type Proof } from "../../support/shell-corpus.js";

export type SetName = "OPEN" | "CLOSED";
export interface Case {
  cmd: string;
  set: SetName;
  expected: Expected;
  proof?: Proof;
}

/** Under OPEN: a denied program hides inside; under CLOSED: only allowed programs appear, yet something else runs. */
export const deny = (cmd: string, proof?: Proof): Case => ({ cmd, set: "OPEN", expected: "deny", proof });
export const hidden = (cmd: string, proof?: Proof): Case => ({ cmd, set: "OPEN", expected: "not-allow", proof });
export const stretch = (cmd: string, proof?: Proof): Case => ({ cmd, set: "CLOSED", expected: "not-allow", proof });

export const rm: Proof = { ran: "rm" };
export const evil: Proof = { ran: "evil" };
export const secret: Proof = { printed: SECRET };
export const need = (needs: string[], proof: Proof = rm): Proof => ({ ...proof, needs });
export const DIRTY = " && printf 'c\\n' >> notes.md";
export const git = (proof: Proof = rm, extra = ""): Proof => ({ ...proof, repo: true, setup: `true${extra}` });
/** Set-ups several classes share. */
export const EXT = "git config protocol.ext.allow always";
export const PICKLE = "printf 'cos\\nsystem\\n(S%s\\ntR.' \"'rm x'\" > e.pkl";
export const HOOK = "mkdir -p t/hooks && printf '#!/bin/sh\\nevil\\n' > t/hooks/post-checkout && chmod +x t/hooks/post-checkout";
export const UNTRACKED_ENV = "git rm -q --cached .env && git commit -qm untrack";
