import type { Classified } from "./classify.js";
import { prefixLength } from "./arity.js";

/** Other names of the same subcommand: a rule written for one must meet the others. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ...["npm", "pnpm", "yarn", "bun"].flatMap(
    (pm) =>
      [
        [`${pm} run-script`, `${pm} run`],
        [`${pm} rum`, `${pm} run`],
        [`${pm} urn`, `${pm} run`],
        [`${pm} i`, `${pm} install`],
        [`${pm} in`, `${pm} install`],
        [`${pm} isntall`, `${pm} install`],
        [`${pm} add`, `${pm} install`],
        [`${pm} t`, `${pm} test`],
        [`${pm} tst`, `${pm} test`],
        [`${pm} x`, `${pm} exec`],
        [`${pm} rm`, `${pm} uninstall`],
        [`${pm} r`, `${pm} uninstall`],
        [`${pm} un`, `${pm} uninstall`],
        [`${pm} remove`, `${pm} uninstall`],
        [`${pm} up`, `${pm} update`],
        [`${pm} upgrade`, `${pm} update`],
        [`${pm} ls`, `${pm} list`],
        [`${pm} pub`, `${pm} publish`],
      ] as [string, string][],
  ),
  ["docker container ls", "docker ps"],
  ["docker container list", "docker ps"],
  ["docker container rm", "docker rm"],
  ["docker container run", "docker run"],
  ["docker container exec", "docker exec"],
  ["docker container stop", "docker stop"],
  ["docker container kill", "docker kill"],
  ["docker container start", "docker start"],
  ["docker container restart", "docker restart"],
  ["docker container logs", "docker logs"],
  ["docker container prune", "docker container prune"],
  ["docker image rm", "docker rmi"],
  ["docker image ls", "docker images"],
  ["docker image build", "docker build"],
  ["docker image push", "docker push"],
  ["docker image pull", "docker pull"],
  ["docker image tag", "docker tag"],
  ["docker-compose", "docker compose"],
  ["podman", "docker"],
  ["kubectl rm", "kubectl delete"],
]);

/** The first words of the names above: a command that starts with none of them has no other name. */
const ALIAS_HEADS: ReadonlySet<string> = new Set([...ALIASES.keys()].map((k) => k.split(" ")[0]!));

/** Whether a command whose first word is `first` may have another name (`npm run-script`, `podman`). */
export function mayBeAliased(first: string): boolean {
  const blank = first.indexOf(" ");
  return ALIAS_HEADS.has(blank === -1 ? first : first.slice(0, blank));
}

function aliased(words: readonly string[]): string[] | null {
  if (!mayBeAliased(words[0] ?? "")) return null;
  for (const n of [3, 2, 1]) {
    const head = words.slice(0, n).join(" ");
    const to = words.length >= n ? ALIASES.get(head) : undefined;
    if (to && to !== head) return [...to.split(" "), ...words.slice(n)];
  }
  return null;
}

/**
 * The same command as rules may have been written for it: long options under their full names
 * (`--har` is `--hard`), options before operands (`git reset HEAD~1 --hard`), another name of the
 * subcommand (`npm run-script`, `docker container rm`).
 */
export function readingsOf(words: readonly string[], classified: Classified | null): string[][] {
  const out: string[][] = [];
  const canonical = classified && classified.canonical.size > 0 ? words.map((w, i) => classified.canonical.get(i) ?? w) : null;
  const base = canonical ?? words;
  if (canonical) out.push(canonical);
  if (hasOption(base)) {
    const n = prefixLength(base);
    let options = 0;
    for (let i = n; i < base.length; i++) if (base[i]!.startsWith("-")) options++;
    if (options > 0 && options < base.length - n) {
      const rest = base.slice(n);
      out.push([...base.slice(0, n), ...rest.filter((w) => w.startsWith("-")), ...rest.filter((w) => !w.startsWith("-"))]);
    }
  }
  // `pnpm NAME` may run the script NAME: rules written for `pnpm run NAME` meet it.
  if (classified?.spec?.runsOtherSubcommands && classified.name === words[0] && classified.inner.length > 0) out.push([words[0]!, "run", ...base.slice(1)]);
  const found = out.length;
  const other = aliased(base);
  if (other) out.push(other);
  for (let i = 0; i < found; i++) {
    const next = aliased(out[i]!);
    if (next) out.push(next);
  }
  return out;
}

/** Whether a word after the first is an option: without one, there are none to move. */
function hasOption(words: readonly string[]): boolean {
  for (let i = 1; i < words.length; i++) if (words[i]!.startsWith("-")) return true;
  return false;
}
