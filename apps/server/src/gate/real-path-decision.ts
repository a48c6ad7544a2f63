import type { Decision } from "@gatehouse/policy";
import type { Resolved } from "./worker-real-paths.js";

/** A decision made with a resolver of real paths: the policy asks it synchronously, path by path. */
export type DecideWith = (resolveRealPath: (absolute: string) => string) => Decision;

/** Paths resolved on the worker, as the decision asked for them: where each led, or why it could not be known. */
export type Leads = ReadonlyMap<string, string>;

/** A decision that follows links learns one level more each round (`link/../x`); paths are seldom deeper. */
const MAX_ROUNDS = 8;

const describe = (r: Resolved) => ("real" in r ? r.real : `unresolvable (${r.error})`);

const outcome = (decision: Decision, known: ReadonlyMap<string, Resolved>) => ({
  decision,
  leads: new Map([...known].map(([p, r]) => [p, describe(r)])),
  resolved: known,
});

/**
 * The decision on the worker's real paths. The policy resolves paths synchronously, so the
 * decision is made with the answers known so far, the paths it asked about and had no answer
 * for are fetched from the worker in one request, and it is made again, until it asked nothing
 * new. Only that last decision counts.
 */
export async function decideOnRealPaths(
  decide: DecideWith,
  lookup: (paths: readonly string[]) => Promise<ReadonlyMap<string, Resolved>>,
): Promise<{ decision: Decision; leads: Leads; resolved: ReadonlyMap<string, Resolved> }> {
  const known = new Map<string, Resolved>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const missing = new Set<string>();
    const decision = decide((absolute) => {
      const found = known.get(absolute);
      if (!found) missing.add(absolute);
      else if ("error" in found) throw Object.assign(new Error(`${absolute}: ${found.error}`), { code: found.error });
      return found && "real" in found ? found.real : absolute;
    });
    if (missing.size === 0) return outcome(decision, known);
    const answer = await lookup([...missing]);
    let same = true;
    for (const p of missing) {
      const found = answer.get(p) ?? { error: "ENOANSWER" };
      known.set(p, found);
      same &&= "real" in found && found.real === p;
    }
    // Every path it lacked leads to itself, as this round took it to: deciding again changes nothing.
    if (same) return outcome(decision, known);
  }
  const last = decide(() => {
    throw Object.assign(new Error("too deep"), { code: "ETOODEEP" });
  });
  return outcome(last, known);
}
