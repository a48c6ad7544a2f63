import type { SpecInput } from "../spec.js";

const GREP: SpecInput = {
  options:
    "-E -F -G -P -e:text -f:read -i -y -v -w -x -c -L -l -m:text -o -q -s -b -H -h -n -T -Z -z -A:text " +
    "-B:text -C:text -a -I -D:text -d:text -r -R -U -# --color?=text --colour?=text --label:text " +
    "--binary-files:text --include:path --exclude:text --exclude-from:read --exclude-dir:text " +
    "--line-buffered --null-data --null --extended-regexp --fixed-strings --basic-regexp --perl-regexp " +
    "--regexp:text --file:read --ignore-case --no-ignore-case --invert-match --word-regexp --line-regexp " +
    "--count --files-without-match --files-with-matches --max-count:text --only-matching --quiet --silent " +
    "--no-messages --byte-offset --with-filename --no-filename --line-number --initial-tab " +
    "--after-context:text --before-context:text --context:text --text --devices:text --directories:text " +
    "--recursive --dereference-recursive --binary",
  operands: { lead: ["text"], leadUnless: ["-e", "-f", "--regexp", "--file"], rest: "read" },
};

/** Searching programs. `find` has its own reader (find.ts): its expression is not options. */
export const SEARCH_PROGRAMS: Record<string, SpecInput> = {
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: {
    options:
      "-e:text -f:read -i -s -S -v -w -x -F -l -c -n -N -H -I -o -q -r:text -t:text -T:text -g:path -u -L " +
      "-z -a -A:text -B:text -C:text -m:text -j:text -M:text -0 -p -U -E:text -P -. --regexp:text " +
      "--file:read --ignore-case --case-sensitive --smart-case --invert-match --word-regexp --line-regexp " +
      "--fixed-strings --files-with-matches --files-without-match --count --count-matches --line-number " +
      "--no-line-number --with-filename --no-filename --only-matching --quiet --replace:text --type:text " +
      "--type-not:text --type-add:text --type-clear:text --type-list --glob:path --iglob:path --hidden " +
      "--no-hidden --no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot --no-ignore-global " +
      "--no-ignore-files --no-ignore-exclude --ignore-file:read --follow --search-zip --pre:runs " +
      "--pre-glob:text --text --after-context:text --before-context:text --context:text --max-count:text " +
      "--threads:text --max-filesize:text --max-columns:text --max-columns-preview --max-depth:text " +
      "--multiline --multiline-dotall --null --null-data --pretty --json --vimgrep --heading --no-heading " +
      "--color:text --colors:text --column --no-column --sort:text --sortr:text --files --stats --trim " +
      "--passthru --byte-offset --binary --engine:text --pcre2 --auto-hybrid-regex --crlf --encoding:text " +
      "--unrestricted --debug --trace --no-messages --no-config --one-file-system --path-separator:text " +
      "--field-match-separator:text --field-context-separator:text --context-separator:text " +
      "--no-context-separator --line-buffered --block-buffered --mmap --no-mmap --dfa-size-limit:text " +
      "--regex-size-limit:text --glob-case-insensitive --include-zero --max-filesize:text --sort-files " +
      "--hyperlink-format:text",
    operands: { lead: ["text"], leadUnless: ["-e", "-f", "--regexp", "--file", "--files", "--type-list"], rest: "read" },
  },
  fd: {
    options:
      "-H -I -u -s -i -g -F -a -l -L -p -0 -q -d:text -t:text -e:text -E:text -c:text -j:text -S:text " +
      "--hidden --no-ignore --unrestricted --case-sensitive --ignore-case --glob --fixed-strings " +
      "--absolute-path --list-details --follow --full-path --print0 --quiet --max-depth:text " +
      "--min-depth:text --type:text --extension:text --exclude:text --color:text --threads:text --size:text " +
      "--changed-within:text --changed-before:text --max-results:text -x:runs -X:runs --exec:runs " +
      "--exec-batch:runs",
    operands: { lead: ["text"], rest: "path" },
  },
};
