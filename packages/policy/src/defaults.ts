/** The rules every worker starts with (docs/permissions.md, "The default rules"), as the text written to a new permissions.jsonc. */
export const DEFAULT_RULES_TEXT = `// Gatehouse tool permissions for this worker.
//
//   "tool": "action"                 one action for every call of the tool
//   "tool": { "pattern": "action" }  per-pattern rules, read top to bottom
//   "*": "action"                    every tool (a later "*" overrides earlier entries)
//
// Actions: "allow" | "deny" | "ask". The last matching rule wins; no match means "ask".
// Patterns are globs ("*.env", "git push *"); ~/ and $HOME/ expand to the home directory.
// Rules that end with "// approved ..." were added by a person's "always" answer.
{
  "*": "ask",
  "read_file": {
    "*": "allow",
    "*.env": "deny",
    "*.env.*": "deny",
    "*credentials*": "deny",
    "*secret*": "deny",
    "*.env.example": "allow",
    // Token files kept beside a project (\`--token-file client.token\`): a client's token approves calls.
    "*.token": "deny",
    // Credential stores in the home directory: keys, tokens and passwords for other systems.
    "~/.ssh/*": "deny",
    "~/.gnupg/*": "deny",
    "~/.netrc": "deny",
    "~/.npmrc": "deny",
    "~/.yarnrc.yml": "deny",
    "~/.pypirc": "deny",
    "~/.m2/settings.xml": "deny",
    "~/.gradle/gradle.properties": "deny",
    "~/.pgpass": "deny",
    "~/.vault-token": "deny",
    "~/.docker/*": "deny",
    "~/.kube/*": "deny",
    "~/.aws/*": "deny",
    "~/.azure/*": "deny",
    "~/.config/gcloud/*": "deny",
    "~/.config/gh/*": "deny",
    "~/.config/glab-cli/*": "deny",
    "~/.password-store/*": "deny",
    "~/.local/share/keyrings/*": "deny",
    "~/.mozilla/*": "deny",
    "~/.config/google-chrome/*": "deny",
    "~/.config/chromium/*": "deny",
    "~/.config/BraveSoftware/*": "deny",
    "~/.config/microsoft-edge/*": "deny",
    "~/.config/vivaldi/*": "deny",
    "~/snap/chromium/*": "deny",
    "~/snap/firefox/*": "deny",
    "~/.var/app/org.mozilla.firefox/*": "deny",
    "~/.var/app/org.chromium.Chromium/*": "deny",
    "~/.var/app/com.google.Chrome/*": "deny",
    "~/.var/app/com.brave.Browser/*": "deny",
    "~/.config/google-chrome-beta/*": "deny",
    "~/.config/google-chrome-unstable/*": "deny",
    "~/.config/opera/*": "deny",
    "~/.librewolf/*": "deny",
    "~/.thunderbird/*": "deny",
    "~/snap/brave/*": "deny",
    "~/snap/thunderbird/*": "deny",
    "~/.var/app/com.microsoft.Edge/*": "deny",
    "~/.var/app/com.vivaldi.Vivaldi/*": "deny",
    "~/.var/app/io.gitlab.librewolf-community/*": "deny",
    "~/.var/app/org.mozilla.Thunderbird/*": "deny",
    // The machine's own: password hashes and the ssh host keys a worker running as root can read.
    "/etc/shadow": "deny",
    "/etc/shadow-": "deny",
    "/etc/gshadow": "deny",
    "/etc/gshadow-": "deny",
    "/etc/ssh/*": "deny"
  },
  "write_file": { "*": "allow", "*.env": "deny", "*.env.*": "deny" },
  "edit_file": { "*": "allow", "*.env": "deny", "*.env.*": "deny" },
  "glob": "allow",
  "grep": "allow",
  "skill": "ask",
  "shell_exec": "ask",
  // Hosts that commands connect to, through the worker's proxy: "host", "host:port",
  // "*.example.org:443", "10.0.0.0/8". Loopback, link-local and metadata addresses, and the
  // server's own, are reached only by an allow rule that names them exactly.
  "network": {
    "*": "ask",
    "registry.npmjs.org:443": "allow",
    "registry.yarnpkg.com:443": "allow",
    "pypi.org:443": "allow",
    "files.pythonhosted.org:443": "allow",
    "crates.io:443": "allow",
    "index.crates.io:443": "allow",
    "static.crates.io:443": "allow",
    "proxy.golang.org:443": "allow",
    "sum.golang.org:443": "allow",
    "rubygems.org:443": "allow",
    "repo.maven.apache.org:443": "allow",
    "repo1.maven.org:443": "allow"
  }
}
`;
