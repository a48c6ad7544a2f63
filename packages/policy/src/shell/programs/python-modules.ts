import type { SpecInput } from "../spec.js";

const INTERACTIVE = "starts an interactive interpreter that runs what it reads";
const flags = (options: string, operands: SpecInput["operands"] = "text"): SpecInput => ({ options, operands });

/**
 * Modules of Python's standard library run as programs (`python3 -m NAME`). A module not listed
 * here is judged as a program the gate does not know: only a rule naming it allows it.
 */
export const PYTHON_MODULES: Record<string, SpecInput> = {
  "json.tool": flags("--sort-keys --no-ensure-ascii --json-lines --indent:text --tab --no-indent --compact -h --help", { lead: ["read"], rest: "write" }),
  json: flags("--sort-keys --no-ensure-ascii --json-lines --indent:text --tab --no-indent --compact -h --help", { lead: ["read"], rest: "write" }),
  venv: flags(
    "--system-site-packages --symlinks --copies --clear --upgrade --without-pip --upgrade-deps --without-scm-ignore-files --prompt:text -h --help",
    "write",
  ),
  base64: flags("-e -d -u -t", "read"),
  gzip: flags("-d --decompress --fast --best", "write"),
  zipfile: flags("-l:read --list:read -t:read --test:read -e:read,write --extract:read,write -c:write --create:write", "read"),
  tarfile: flags("-v --verbose -l:read --list:read -t:read --test:read -e:read,write --extract:read,write -c:write --create:write --filter:text", "read"),
  py_compile: flags("-q --quiet", "write"),
  compileall: flags("-l -f -q -b -r:text -d:text -s:text -p:text -x:text -i:read -j:text -o:text -e:text --invalidation-mode:text --hardlink-dupes", "write"),
  tokenize: flags("-e --exact", "read"),
  ast: flags("-m:text --mode:text --no-type-comments -a --include-attributes -i:text --indent:text", "read"),
  dis: flags("-C --show-caches -O --show-offsets", "read"),
  tabnanny: flags("-q -v", "read"),
  pickletools: flags("-o:write --output:write -m --memo -l:text --indentlevel:text -a --annotate -p:text --preamble:text", "read"),
  quopri: flags("-t -d", "read"),
  doctest: flags("-v -f --fail-fast -o:text --option:text", "read"),
  unittest: { anyFlag: true, options: "-k:text -s:path --start-directory:path -t:path --top-level-directory:path -p:text --pattern:text", operands: "text" },
  cProfile: flags("-o:write -s:text -m!", { lead: ["read"], rest: "text", optionsFirst: true }),
  profile: flags("-o:write -s:text -m!", { lead: ["read"], rest: "text", optionsFirst: true }),
  zipapp: flags("-o:write --output:write -p:text --python:text -m:text --main:text -c --compress --info -h --help", "read"),
  site: flags("--user-base --user-site"),
  platform: flags("--terse --nonaliased"),
  sysconfig: flags(""),
  calendar: { anyFlag: true, options: "-o:write --output:write -L:text --locale:text -e:text --encoding:text -t:text --type:text", operands: "text" },
  mimetypes: flags("-e -l --extension --lenient"),
  uuid: flags("-u:text --uuid:text -n:text --namespace:text -N:text --name:text"),
  this: flags(""),
  timeit: { risk: "runs the Python statements it is given", anyFlag: true, operands: "text" },
  pickle: { risk: "loads pickles, which run code", anyFlag: true, operands: "read" },
  pdb: { risk: "runs a debugger that runs the commands it is given and reads", anyFlag: true, operands: "read" },
  trace: { risk: "runs a program under the tracer and writes its reports", anyFlag: true, operands: "read" },
  code: { risk: INTERACTIVE, anyFlag: true, operands: "text" },
  asyncio: { risk: INTERACTIVE, anyFlag: true, operands: "text" },
  idlelib: { risk: INTERACTIVE, anyFlag: true, operands: "text" },
  sqlite3: { risk: "runs the SQL it reads, which can touch other database files", anyFlag: true, operands: "write" },
  "http.server": { risk: "serves the files of a directory to the network", anyFlag: true, operands: "text" },
  pydoc: { risk: "imports the modules it documents, and can serve them or open a browser", anyFlag: true, operands: "text" },
  webbrowser: { risk: "opens a browser", anyFlag: true, operands: "text" },
  antigravity: { risk: "opens a browser", anyFlag: true, operands: "text" },
  ensurepip: { risk: "installs pip into the interpreter's own directories", anyFlag: true, operands: "text" },
};
