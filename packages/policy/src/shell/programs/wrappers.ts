import type { SpecInput } from "../spec.js";

/**
 * Programs whose job is to run another program. The wrapper and the command it runs are both
 * sub-commands: both must be allowed. `commandAt` counts the operands before the command
 * (`timeout 5 CMD`, `chroot DIR CMD`).
 */
export const WRAPPER_PROGRAMS: Record<string, SpecInput> = {
  sudo: {
    options:
      "-A -b -E -H -k -K -l -n -P -S -v -h -i! -s! -e! -u:text -g:text -p:text -C:text -D:path -r:text " +
      "-t:text -T:text -U:text -R:runs -D:cwd --askpass --background --preserve-env?=text --edit! " +
      "--group:text --set-home --host:text --login! --remove-timestamp --reset-timestamp --list " +
      "--non-interactive --preserve-groups --prompt:text --chroot:runs --role:text --stdin --shell! " +
      "--type:text --command-timeout:text --other-user:text --user:text --validate --chdir:cwd " +
      "--close-from:text",
    commandAt: 0,
    privileged: true,
    assignments: true,
  },
  doas: { options: "-n -s! -L -u:text -C:read", commandAt: 0, privileged: true },
  pkexec: { options: "--user:text --disable-internal-agent --keep-cwd", commandAt: 0, privileged: true },
  run0: {
    options:
      "-u:text --user:text -g:text --group:text -D:path --chdir:path --setenv:runs --nice:text --unit:text " +
      "--description:text --property:text --slice:text --background:text",
    commandAt: 0,
    privileged: true,
  },
  nice: { options: "-n:text -# --adjustment:text", commandAt: 0 },
  nohup: { commandAt: 0 },
  timeout: { options: "-s:text -k:text -v -f -p --signal:text --kill-after:text --preserve-status --foreground --verbose", commandAt: 1 },
  time: { options: "-f:text -o:write -a -p -q -v --format:text --output:write --append --portability --quiet --verbose", commandAt: 0, assignments: true },
  exec: { options: "-a:text -c -l", commandAt: 0 },
  builtin: { commandAt: 0 },
  stdbuf: { options: "-i:text -o:text -e:text --input:text --output:text --error:text", commandAt: 0 },
  ionice: { options: "-c:text -n:text -p:text -P:text -u:text -t --class:text --classdata:text --pid:text --pgid:text --uid:text --ignore", commandAt: 0 },
  chrt: {
    options:
      "-a -b -d -e -f -i -m -o -r -R -v -p -T:text -P:text -D:text --all-tasks --batch --deadline --ext " +
      "--fifo --idle --other --rr --reset-on-fork --verbose --pid --sched-runtime:text --sched-period:text " +
      "--sched-deadline:text --max",
    commandAt: 1,
  },
  taskset: { options: "-a -c -p --all-tasks --cpu-list --pid", commandAt: 1 },
  setsid: { options: "-c -f -w --ctty --fork --wait", commandAt: 0 },
  flock: {
    options:
      "-s -x -u -n -o -F -w:text -E:text -c:script --shared --exclusive --unlock --nonblock --nb --close " +
      "--no-fork --verbose --timeout:text --conflict-exit-code:text --command:script",
    operands: "write",
    commandAt: 1,
  },
  chroot: { options: "--userspec:text --groups:text --skip-chdir", operands: "path", commandAt: 1 },
  unshare: {
    options:
      "-m -u -i -n -p -U -C -T -f -r -c --mount?=text --uts?=text --ipc?=text --net?=text --pid?=text " +
      "--user?=text --cgroup?=text --time?=text --fork --map-root-user --map-current-user --map-auto " +
      "--mount-proc?=text --propagation:text --setgroups:text --kill-child?=text --keep-caps -S:text " +
      "-G:text -R:path -w:cwd --setuid:text --setgid:text --root:path --wd:cwd",
    commandAt: 0,
  },
  nsenter: {
    options:
      "-a -F -Z -t:text -S:text -G:text -m?=text -u?=text -i?=text -n?=text -p?=text -U?=text -C?=text " +
      "-T?=text -r?=text -w?=cwd --all --target:text --mount?=text --uts?=text --ipc?=text --net?=text " +
      "--pid?=text --cgroup?=text --user?=text --time?=text --setuid:text --setgid:text " +
      "--preserve-credentials --root?=text --wd?=cwd --no-fork --follow-context",
    commandAt: 0,
  },
  setpriv: {
    options:
      "-d --dump --nnp --no-new-privs --clear-groups --keep-groups --init-groups --reset-env --ruid:text " +
      "--euid:text --reuid:text --rgid:text --egid:text --regid:text --groups:text --inh-caps:text " +
      "--ambient-caps:text --bounding-set:text --securebits:text --pdeathsig:text --selinux-label:text " +
      "--apparmor-profile:text --landlock-access:text --landlock-rule:text",
    commandAt: 0,
  },
  strace: {
    options:
      "-f -F -c -C -w -d -q -r -t -T -v -x -y -i -k -n -D -Z -z -o:write -e:text -p:text -s:text -S:text " +
      "-u:text -E:runs -P:path -a:text -b:text -I:text -X:text -O:text -U:text --output:write --trace:text " +
      "--signal:text --follow-forks --summary-only --attach:text --env:runs --user:text --string-limit:text",
    commandAt: 0,
  },
  ltrace: {
    options:
      "-f -c -C -i -S -T -t -L -b -o:write -e:text -l:runs -p:text -s:text -u:text -x:text -w:text -n:text " +
      "-a:text -A:text -F:read --output:write --library:runs --demangle --align:text --indent:text",
    commandAt: 0,
  },
  valgrind: {
    options:
      "-q -v --tool:text --log-file:write --xml-file:write --leak-check?=text --show-leak-kinds?=text " +
      "--track-origins?=text --error-exitcode:text --suppressions:read --trace-children?=text --quiet " +
      "--verbose",
    commandAt: 0,
  },
  xargs: {
    options:
      "-0 -o -p -r -t -x -a:read -d:text -E:text -e?=text -I:text -i?=text -L:text -l?=text -n:text -P:text " +
      "-s:text --null --arg-file:read --delimiter:text --eof?=text --replace?=text --max-lines?=text " +
      "--max-args:text --open-tty --interactive --max-procs:text --no-run-if-empty --max-chars:text " +
      "--verbose --exit --show-limits --process-slot-var:text",
    commandAt: 0,
    addsArguments: true,
  },
  busybox: { commandAt: 0 },
  fakeroot: { options: "-u -l:runs -s:write -i:read --lib:runs --faked:runs --unknown-is-real", commandAt: 0 },
  faketime: { options: "-m -f -p:text", commandAt: 1 },
  proxychains: { options: "-q -f:read", commandAt: 0 },
  proxychains4: { options: "-q -f:read", commandAt: 0 },
  torsocks: { options: "-q -d -i -u:text -p:text -a:text -P:text --isolate --shell!", commandAt: 0 },
  unbuffer: { options: "-p", commandAt: 0 },
  catchsegv: { commandAt: 0 },
  "dbus-run-session": { options: "--config-file:read --dbus-daemon:runs", commandAt: 0 },
  "xvfb-run": {
    options:
      "-a -e:write -f:write -n:text -p:text -s:text -w:text --auto-servernum --error-file:write " +
      "--auth-file:write --server-num:text --server-args:text --wait:text",
    commandAt: 0,
  },
  linux32: { commandAt: 0 },
  linux64: { commandAt: 0 },
  setarch: {
    options:
      "-v -R -F -Z -L -X -B -I -S -T -3 --verbose --addr-no-randomize --fdpic-funcptrs --mmap-page-zero " +
      "--addr-compat-layout --read-implies-exec --32bit --short-inode --whole-seconds --sticky-timeouts " +
      "--3gb --uname-2.6 --list",
    commandAt: 1,
  },
  entr: { options: "-a -c -d -n -p -r -s! -z", commandAt: 0 },
  "systemd-run": { risk: "starts the command as a service, outside this call", anyFlag: true, operands: "text" },
  "start-stop-daemon": { risk: "starts a daemon outside this call", anyFlag: true, operands: "text" },
  daemonize: { risk: "starts a daemon outside this call", anyFlag: true, operands: "text" },
  at: { risk: "schedules the commands of its input to run later", anyFlag: true, operands: "text" },
  batch: { risk: "schedules the commands of its input to run later", anyFlag: true, operands: "text" },
  crontab: { risk: "installs commands to run on a schedule", anyFlag: true, operands: "text" },
  parallel: { risk: "runs commands built from its arguments and input", anyFlag: true, operands: "text" },
  tmux: { risk: "runs commands in a terminal session outside this call", anyFlag: true, operands: "text" },
  screen: { risk: "runs commands in a terminal session outside this call", anyFlag: true, operands: "text" },
  expect: { risk: "runs an expect (Tcl) program", anyFlag: true, operands: "text" },
  capsh: { risk: "runs a shell with the arguments it is given", anyFlag: true, operands: "text" },
  sg: { risk: "runs a shell command as another group", anyFlag: true, operands: "text" },
  newgrp: { risk: "starts a shell as another group", anyFlag: true, operands: "text" },
  ssh: { risk: "runs commands on another machine", anyFlag: true, operands: "text" },
  gdb: { risk: "runs debugger commands, which can run programs", anyFlag: true, operands: "text" },
  "run-parts": { risk: "runs every program in a directory", anyFlag: true, operands: "text" },
  envdir: { risk: "sets the environment from files the gate does not read", anyFlag: true, operands: "text" },
  watch: {
    options:
      "-n:text -d?=text -t -b -e -g -c -x -p -w -q --interval:text --differences?=text --no-title --beep " +
      "--errexit --chgexit --color --no-color --exec --precise --no-wrap --no-linewrap --equexit:text",
    operands: "script",
  },
  script: {
    options:
      "-a -e -f -q -c:script -t?=text -T:write -I:write -O:write -B:write -E:text --append --command:script " +
      "--return --flush --quiet --timing?=text --log-in:write --log-out:write --log-io:write " +
      "--log-timing:write --echo:text --force",
    operands: "write",
  },
  su: {
    options:
      "-c:script --command:script --session-command:script -l! --login! -m -p --preserve-environment " +
      "-s:runs --shell:runs -g:text --group:text -G:text --supp-group:text -P --pty -w:text " +
      "--whitelist-environment:text -f --fast",
    operands: { lead: ["text"], rest: "runs" },
  },
};

/** Wrappers that start an interactive shell when they are given no command. */
export const SHELL_WITHOUT_COMMAND: ReadonlySet<string> = new Set([
  "sudo",
  "doas",
  "pkexec",
  "run0",
  "unshare",
  "nsenter",
  "setpriv",
  "chroot",
  "su",
  "runuser",
  "script",
  "fakeroot",
  "torsocks",
]);
