import type { SpecInput } from "../spec.js";

const TEXT: SpecInput = { operands: "text" };
const DECLARE = "-a -A -f -F -g -I -l -p -r -t -u -x -n! -i!";

/**
 * Shell builtins and small programs that print or compute. `name` operands are variable names:
 * anything but a plain identifier (`a[$(cmd)]`) would be evaluated by the shell.
 */
export const BUILTIN_PROGRAMS: Record<string, SpecInput> = {
  echo: { options: "-n -e -E", anyFlag: true, operands: { rest: "text", optionsFirst: true } },
  printf: { options: "-v:name", operands: { rest: "text", optionsFirst: true } },
  true: TEXT,
  false: TEXT,
  ":": TEXT,
  yes: TEXT,
  sleep: TEXT,
  wait: { options: "-n -f -p:name", operands: "text" },
  seq: { options: "-f:text -s:text -w --format:text --separator:text --equal-width", operands: "text" },
  pwd: { options: "-L -P", operands: "text" },
  whoami: TEXT,
  id: { options: "-u -g -G -n -r -a -z --user --group --groups --name --real --zero", operands: "text" },
  uname: {
    options:
      "-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release --kernel-version " +
      "--machine --processor --hardware-platform --operating-system",
    operands: "text",
  },
  date: {
    options:
      "-d:text -f:read -I?=text -R -r:path -u --date:text --file:read --iso-8601?=text --rfc-email " +
      "--rfc-3339:text --reference:path --utc --universal --debug -s:text! --set:text!",
    operands: "text",
  },
  which: { options: "-a -s", operands: "text" },
  type: { options: "-a -f -p -P -t", operands: "text" },
  printenv: { options: "-0 --null", operands: "text" },
  tput: { options: "-T:text -S -V -x", operands: "text" },
  clear: { options: "-x -T:text -V", operands: "text" },
  nproc: { options: "--all --ignore:text", operands: "text" },
  getconf: { options: "-a -v:text", operands: "text" },
  locale: { options: "-a -m -c -k", operands: "text" },
  jobs: { options: "-l -n -p -r -s", operands: "text" },
  dirs: { options: "-c -l -p -v", operands: "text" },
  kill: { options: "-s:text -n:text -l -L -# -9 -15 -TERM -KILL -HUP -INT", anyFlag: true, operands: "text" },
  umask: { options: "-p -S", operands: "text" },
  ulimit: { anyFlag: true, operands: "text" },
  shift: TEXT,
  exit: TEXT,
  return: TEXT,
  break: TEXT,
  continue: TEXT,
  times: TEXT,
  caller: TEXT,
  disown: { options: "-a -h -r", operands: "text" },
  fg: TEXT,
  bg: TEXT,
  getopts: { operands: { lead: ["text", "name"], rest: "text" } },
  test: { anyFlag: true, operands: "path" },
  "[": { anyFlag: true, operands: "path" },
  read: { options: "-a:name -d:text -e -i:text -n:text -N:text -p:text -r -s -t:text -u:text", operands: "name" },
  mapfile: { options: "-d:text -n:text -O:text -s:text -t -u:text -C:runs -c:text", operands: "name" },
  readarray: { options: "-d:text -n:text -O:text -s:text -t -u:text -C:runs -c:text", operands: "name" },
  export: { options: "-f! -n -p", operands: "assign" },
  declare: { options: DECLARE, operands: "assign" },
  typeset: { options: DECLARE, operands: "assign" },
  local: { options: DECLARE, operands: "assign" },
  readonly: { options: "-a -A -f -p", operands: "assign" },
  unset: { options: "-f -v -n", operands: "name" },
  unalias: { options: "-a", operands: "text" },
  alias: { options: "-p", operands: "assign" },
  hash: { options: "-r -d -l -t -p:runs", operands: "text" },
  enable: { risk: "turns shell builtins on or off, or loads new ones", anyFlag: true, operands: "text" },
  complete: { risk: "sets up completions, which can run commands", anyFlag: true, operands: "text" },
  shopt: { options: "-p -q -s! -u -o", operands: "text" },
  trap: { options: "-l -p -P", operands: { lead: ["script"], leadUnless: ["-l", "-p", "-P"], rest: "text" } },
  eval: { operands: "script" },
  source: { operands: { lead: ["read"], rest: "text" }, scriptOperand: true },
  ".": { operands: { lead: ["read"], rest: "text" }, scriptOperand: true },
  let: { operands: "arith" },
  cd: { options: "-L -P -e -@", operands: "path" },
  pushd: { options: "-n", operands: "path" },
  popd: { options: "-n", operands: "text" },
  history: { risk: "reads or changes the shell history", anyFlag: true, operands: "text" },
  fc: { risk: "runs commands from the shell history", anyFlag: true, operands: "text" },
};
