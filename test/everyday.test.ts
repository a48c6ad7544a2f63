import { loadShellParser } from "@gatehouse/policy";
import { afterAll, describe, expect, it } from "vitest";
import { CWD, decideShell, HOME, rules, Tally } from "./support/shell-corpus.js";

await loadShellParser();

/** What a developer's operator typically writes: the usual programs allowed, secrets denied to readers. */
const PROGRAMS = [
  "ls", "cat", "head", "tail", "wc", "grep", "egrep", "rg", "sed", "awk", "sort", "uniq", "cut", "tr", "jq", "find", "xargs", "echo",
  "printf", "git", "npm", "pnpm", "npx", "node", "python3", "make", "cargo", "go", "diff", "cmp", "tar", "gzip", "zcat", "cd", "pwd",
  "mkdir", "touch", "cp", "mv", "tee", "date", "basename", "dirname", "realpath", "stat", "file", "du", "df", "which", "type", "command",
  "column", "nl", "tac", "paste", "comm", "seq", "test", "\\\\[", "true", "false", "sleep", "env", "export", "read", "sha256sum", "md5sum",
  "ps", "curl", "less", "tree", "tsc", "vitest", "pytest", "eslint", "prettier", "time", "timeout", "nice", "uniq", "docker ps", "docker logs", "docker images",
];
const EVERYDAY = rules(`{
  "*": "ask",
  "read_file": { "*": "allow", "*.env": "deny", "*.env.*": "deny", "*credentials*": "deny", "*secret*": "deny", "*.env.example": "allow" },
  "write_file": { "*": "allow", "*.env": "deny", "*.env.*": "deny" },
  "edit_file": { "*": "allow", "*.env": "deny", "*.env.*": "deny" },
  "shell_exec": { "*": "ask", ${PROGRAMS.map((p) => `"${p}": "allow", "${p} *": "allow"`).join(", ")} }
}`);

const COMMANDS: string[] = [
  // listing and reading
  "ls -la", "ls -lah src", "ls -1 | wc -l", "ls -lt --color=never | head -20", "ls -R src | head -50", "ls src/*.ts", "ls -la | grep '^d'", "pwd",
  "cat package.json", "cat README.md | head -n 40", "head -n 20 src/index.ts", "head -20 src/index.ts", "head -c 200 package-lock.json",
  "tail -n 50 logs/app.log", "tail -f logs/app.log", "tail -n+2 data.csv | cut -d, -f1 | sort | uniq -c | sort -rn | head", "wc -l src/*.ts",
  "wc -c < dist/app.js", "cat .env.example", "less -N README.md", "tree -L 2 src", "tac CHANGELOG.md | head", "nl -ba src/index.ts | sed -n '40,60p'",
  "column -t -s, data.csv | head", "file dist/app.js", "stat -c '%s %n' package.json", "du -sh node_modules", "du -h --max-depth=1 . | sort -h", "df -h .",
  // searching
  "grep -rn \"TODO\" src", "grep -rn -e PAT src", "grep -rnw --include='*.ts' useState src", "grep -E 'error|warn' -i logs/app.log", "grep -c import src/index.ts",
  "grep -l \"describe(\" -r test", "grep -v '^#' config.ini | grep -v '^$'", "grep -A3 -B2 'function main' src/main.ts", "grep --color=never -rIn 'fetch(' src",
  "grep -rn 'API_KEY' src --include='*.ts'", "grep -rn secret src", "grep -q foo file.txt && echo found", "grep -rhoE '[A-Z_]+_TOKEN' src | sort -u",
  "grep -e '-v' -- flags.txt", "grep -ril password docs", "egrep -n 'a|b' notes.md", "grep -Fxf wanted.txt all.txt",
  "rg -n --type ts foo", "rg -n --type ts foo src", "rg -l 'export default' src", "rg --files | head", "rg -i -g '*.md' install docs", "rg -F 'a.b(c)' -n",
  "rg -tjs -w require", "rg -n 'process\\.env\\.' src", "rg --hidden -g '!.git' TODO", "rg -C2 'secret' src/config.ts",
  // editing streams
  "sed -n '/x/p' file.txt", "sed -n 1,20p src/index.ts", "sed -n '10,30p' README.md", "sed 's/foo/bar/g' input.txt", "sed -E 's/[0-9]+/N/g' log.txt | sort | uniq -c",
  "sed -e 's/^/  /' notes.md", "sed '/^$/d' notes.md", "sed -n '/^## /p' README.md", "sed 's#/usr/local#/opt#g' paths.txt", "sed -ne '/BEGIN/,/END/p' cert.txt",
  "awk '{print $1}' access.log | sort | uniq -c | sort -rn | head", "awk -F, '{ sum += $3 } END { print sum }' data.csv", "awk -F: '$3 >= 1000 {print $1}' users.txt",
  "awk 'NR==1, NR==10' file.txt", "awk -v OFS='\\t' '{print $2, $1}' pairs.txt", "awk 'length > 120' src/index.ts", "awk '/error/ {n++} END {print n+0}' app.log",
  "sort names.txt | uniq -c", "sort -u -t, -k2,2 data.csv", "sort -rn counts.txt | head -5", "sort -k2 -t$'\\t' data.tsv", "uniq -d sorted.txt",
  "cut -d: -f1 users.txt", "cut -c1-80 README.md", "tr '[:upper:]' '[:lower:]' < words.txt", "tr -d '\\r' < dos.txt > unix.txt",
  "paste -sd, ids.txt", "comm -12 <(sort a.txt) <(sort b.txt)", "seq 1 10 | paste -sd, -",
  // json
  "jq .name package.json", "jq -r '.dependencies | keys[]' package.json", "jq '.scripts' package.json", "jq -c '.[] | select(.status == \"failed\")' results.json",
  "jq --arg v 1.2.3 '.version = $v' package.json > package.json.tmp", "echo '{\"a\":1}' | jq .a", "curl -s http://localhost:3000/health | jq .",
  "jq -s 'map(.size) | add' a.json b.json",
  // finding
  "find . -name '*.ts' | xargs wc -l", "find . -name '*.ts' -not -path './node_modules/*' | head", "find src -type f -name '*.test.ts'", "find . -maxdepth 2 -type d",
  "find . -name node_modules -prune -o -name '*.json' -print", "find . -type f -newer package.json | head", "find . -name '*.log' -mtime +7",
  "find . -type f -name '*.md' -print0 | xargs -0 wc -w", "find . -name '*.orig' -type f", "find . -iname 'readme*' -maxdepth 1",
  "xargs -n1 echo < list.txt", "xargs -I{} echo {} < names.txt",
  // echo and text that looks like code
  "echo hello", "echo 'rm -rf node_modules && npm ci'", "echo 'const x = () => { return 1; };'", "echo '$(whoami) is not run'", "echo \"Build finished at $(date)\"",
  "echo \"$PATH\" | tr ':' '\\n'", "echo \"${HOME}\"", "echo 'curl https://x.example/install.sh | sh'", "echo '<script>alert(1)</script>' > fixture.html",
  "echo 'SECRET_KEY is read from the environment' >> NOTES.md", "echo \"TODO: move credentials to vault\" | tee -a TODO.md", "echo 'sudo rm -rf /' > warning.txt",
  "echo '; DROP TABLE users; --'", "echo \"eval is evil\"", "echo '.env files are ignored'", "printf '%s\\n' a b c", "printf '%-20s %s\\n' name value",
  "printf 'line1\\nline2\\n' > out.txt", "printf '%s\\n' 'eval \"$(ssh-agent)\"'", "echo -e 'a\\tb'", "echo -n done",
  // git
  "git status", "git status -sb", "git status --porcelain=v1", "git log --oneline | head", "git log --oneline -n 20", "git log --oneline --graph --decorate --all -n 30",
  "git log -p -1 -- src/index.ts", "git log --author='Ada' --since='2 weeks ago' --pretty=format:'%h %s'", "git log --stat -3", "git log --grep='secret' --oneline",
  "git log -S'password' --oneline", "git log --format='%an' | sort | uniq -c | sort -rn", "git log -1 --format=%cd --date=iso", "git diff", "git diff --stat HEAD~1",
  "git diff --cached", "git diff main...HEAD -- src", "git diff --name-only HEAD~3", "git diff --word-diff HEAD~1 -- README.md", "git show HEAD --stat",
  "git show HEAD~2:src/index.ts | head -40", "git blame -L 10,20 src/index.ts", "git branch -a", "git branch --show-current", "git rev-parse --abbrev-ref HEAD",
  "git rev-parse --show-toplevel", "git add -A", "git add src/index.ts test/index.test.ts", "git add -p", "git commit -m \"Fix the secret rotation bug\"",
  "git commit -m 'Do not commit .env files'", "git commit -am \"Remove rm -rf from the build script\"", "git commit -m 'Read credentials from the vault' -m 'The .env.local file is gone.'",
  "git commit -F - <<'EOF'\nAdd token refresh\n\nThe old token was kept in .env.local; read it from the secret store instead.\nEOF",
  "git commit -m \"$(cat <<'EOF'\nUpdate docs for credentials handling\n\nMention that .env is never committed and `rm -rf` is gone.\nEOF\n)\"",
  "git commit --amend --no-edit", "git stash", "git stash list", "git stash pop", "git checkout -b feature/login", "git switch main", "git fetch origin",
  "git pull --rebase origin main", "git push origin feature/login", "git push -u origin HEAD", "git tag -l 'v1.*'", "git remote -v", "git grep -n 'TODO' -- '*.ts'",
  "git ls-files | wc -l", "git ls-files -m", "git shortlog -sn | head", "git cherry-pick abc123", "git rebase main", "git merge --no-ff feature/login",
  "git restore --staged src/index.ts", "git config --get user.name", "git worktree list", "git describe --tags --always", "git reflog -n 10", "git clean -n",
  "git -C packages/web status", "git --no-pager log -5 --oneline", "git log --oneline origin/main..HEAD",
  // package managers, builds, tests
  "npm test", "npm run build", "npm run lint -- --fix", "npm ci", "npm install --save-dev vitest", "npm ls --depth=0", "npm outdated", "npm run test -- --coverage",
  "npm view react version", "npm pack --dry-run", "npx tsc --noEmit", "npx vitest run src/utils.test.ts", "pnpm install --frozen-lockfile", "pnpm exec tsc -b",
  "pnpm test -- --run", "pnpm --filter @app/web build", "node --version", "node scripts/build.js", 
  "python3 -m pytest -q tests", "python3 -m venv .venv", "python3 manage.py migrate",
  "make", "make test", "make -j4 build", "cargo build --release", "cargo test -- --nocapture", "cargo fmt -- --check",
  "cargo clippy --all-targets -- -D warnings", "go test ./...", "go build -o bin/app ./cmd/app", "go vet ./...", "time npm test", "timeout 60 npm test",
  "nice -n 10 make -j2", "NODE_ENV=test npm test", "CI=true npm test", "FORCE_COLOR=0 npx vitest run", "export NODE_ENV=production && npm run build",
  "DEBUG=app:* node server.js",
  // files and directories in the work directory
  "cd src && ls", "cd packages/web && npm test", "cd .. && ls", "cd src; grep -rn TODO .", "mkdir -p build/tmp", "touch src/new-file.ts", "cp README.md docs/README.md",
  "cp -r templates/ out/", "mv old.ts new.ts", "mkdir -p out && cp -r static/. out/", "tee out.log < input.txt",
  "cat <<'EOF' > config.json\n{\"port\": 3000}\nEOF", "cat > notes.txt <<EOF\nBuild $(date)\nEOF",
  // comparing and archives
  "diff -u a.txt b.txt", "diff -ru src-old src", "diff <(sort a.txt) <(sort b.txt)", "cmp a.bin b.bin", "tar -tzf x.tgz", "tar -czf dist.tgz dist",
  "tar -xzf archive.tar.gz -C vendor", "tar xvf release.tar", "gzip -k data.json", "zcat logs/app.log.gz | grep -c ERROR", "sha256sum dist.tgz", "md5sum package-lock.json",
  // small shell
  "date -u +%Y-%m-%dT%H:%M:%SZ", "basename \"$PWD\"", "dirname src/index.ts", "realpath src/../README.md", "which node", "command -v pnpm", "type git",
  "sleep 1 && ls", "true && echo ok || echo failed", "test -f package.json && echo yes", "[ -d node_modules ] || npm ci", "for f in src/*.ts; do echo \"$f\"; done",
  "for i in 1 2 3; do echo $i; done", "while read -r line; do echo \"$line\"; done < list.txt", "ps aux | grep node", "env | sort | grep -i ^node",
  "docker ps -a", "docker logs --tail 100 api", "docker images", "ls 2>/dev/null || true", "npm test 2>&1 | tail -20", "git status && git diff --stat",
  // harmless variables, searches of the whole tree, the home directory's own config
  "LC_ALL=C sort -u words.txt", "TZ=UTC date", "LANG=C.UTF-8 grep -rn x src", "grep -rn TODO .", "rg TODO", "rg -n 'fn main'", "git --no-pager log -5",
  "git log --oneline | head -n 5 | cat -n", "grep -rn 'x' . | wc -l", "ls -la ~", "cat ~/.gitconfig", "echo $HOME", "npm run build && npm test",
  "mkdir -p dist && cp -r public/. dist/", "xargs -n1 basename < files.txt",
];

const tally = new Tally("everyday allowed");
afterAll(() => tally.flush());

describe("everyday command lines stay allowed", () => {
  it("has at least 200 of them", () => expect(COMMANDS.length).toBeGreaterThanOrEqual(200));
  it.each(COMMANDS)("%j", (command) => {
    const got = decideShell(command, { layers: EVERYDAY, cwd: CWD, home: HOME });
    tally.record(command, "EVERYDAY", "allow", got, "everyday");
    expect(got.action, got.reason).toBe("allow");
  });
});

// Inline code of an interpreter is code the gate cannot read, and xargs hands a reader files nobody
// wrote down: these ask even where the programs are allowed.
const ASKS_BY_DESIGN = ["find src -type f | xargs grep -l TODO", "node -e 'console.log(process.version)'", "node -p 'require(\"./package.json\").version'", "python3 -c 'import sys; print(sys.version)'"];

describe("what asks by design, even where the programs are allowed", () => {
  it.each(ASKS_BY_DESIGN)("%j asks", (command) => {
    expect(decideShell(command, { layers: EVERYDAY, cwd: CWD, home: HOME }).action).toBe("ask");
  });
});
