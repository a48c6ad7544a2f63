import type { SpecInput } from "../spec.js";

const CHECKSUM: SpecInput = {
  options: "-b -c -t -z -w --binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn",
  operands: "read",
};
const CAT: SpecInput = {
  options: "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting",
  operands: "read",
};
const PAGER: SpecInput = {
  options: "-N -R -r -S -F -X -i -I -n -E -e -M -m -s -x:text -# -+ --RAW-CONTROL-CHARS --quit-if-one-screen --no-init --chop-long-lines --LINE-NUMBERS",
  operands: "read",
};
const COMPRESS =
  "-c -d -f -k -l -n -N -q -r -t -v -1 -2 -3 -4 -5 -6 -7 -8 -9 -S:text --stdout --to-stdout " +
  "--decompress --uncompress --force --keep --list --name --no-name --quiet --recursive --test " +
  "--verbose --fast --best --suffix:text";

/** Programs that read, list, copy or change files, and text filters (GNU coreutils and friends). */
export const FILE_PROGRAMS: Record<string, SpecInput> = {
  cat: CAT,
  tac: { options: "-b -r -s:text --before --regex --separator:text", operands: "read" },
  nl: {
    options:
      "-b:text -d:text -f:text -h:text -i:text -l:text -n:text -p -s:text -v:text -w:text " +
      "--body-numbering:text --section-delimiter:text --footer-numbering:text --header-numbering:text " +
      "--line-increment:text --join-blank-lines:text --number-format:text --no-renumber " +
      "--number-separator:text --starting-line-number:text --number-width:text",
    operands: "read",
  },
  head: { options: "-c:text -n:text -q -v -z -# --bytes:text --lines:text --quiet --silent --verbose --zero-terminated", operands: "read" },
  tail: {
    options:
      "-c:text -f -F -n:text -q -s:text -v -z -# --bytes:text --follow?=text --lines:text " +
      "--max-unchanged-stats:text --pid:text --quiet --retry --silent --sleep-interval:text --verbose " +
      "--zero-terminated",
    operands: "read",
  },
  less: PAGER,
  more: PAGER,
  // wc shows counts, not content: what it is given is checked as a path named.
  wc: { options: "-c -m -l -L -w --bytes --chars --lines --max-line-length --words --files0-from:read --total?=text", operands: "path" },
  sort: {
    options:
      "-b -d -f -g -h -i -M -n -R -r -V -c -C -m -s -u -z -k:text -t:text -o:write -S:text -T:path " +
      "--parallel:text --compress-program:runs --files0-from:names --output:write --key:text " +
      "--field-separator:text --buffer-size:text --temporary-directory:path --ignore-leading-blanks " +
      "--dictionary-order --ignore-case --general-numeric-sort --human-numeric-sort --ignore-nonprinting " +
      "--month-sort --numeric-sort --random-sort --reverse --version-sort --check?=text --merge --stable " +
      "--unique --zero-terminated --random-source:read --sort:text --debug",
    operands: "read",
  },
  uniq: {
    options:
      "-c -d -D -f:text -i -s:text -u -w:text -z --count --repeated --all-repeated?=text --group?=text " +
      "--skip-fields:text --ignore-case --skip-chars:text --unique --zero-terminated --check-chars:text",
    operands: { lead: ["read"], rest: "write" },
  },
  cut: {
    options:
      "-b:text -c:text -d:text -f:text -n -s -z --bytes:text --characters:text --delimiter:text " +
      "--fields:text --complement --only-delimited --output-delimiter:text --zero-terminated",
    operands: "read",
  },
  paste: { options: "-d:text -s -z --delimiters:text --serial --zero-terminated", operands: "read" },
  tr: { options: "-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1", operands: "text" },
  comm: { options: "-1 -2 -3 -i -z --check-order --nocheck-order --output-delimiter:text --total --zero-terminated", operands: "read" },
  join: {
    options: "-a:text -e:text -i -j:text -o:text -t:text -v:text -1:text -2:text -z --check-order --nocheck-order --header --ignore-case --zero-terminated",
    operands: "read",
  },
  fold: { options: "-b -s -w:text --bytes --spaces --width:text", operands: "read" },
  fmt: {
    options: "-c -p:text -s -t -u -w:text -g:text --crown-margin --prefix:text --split-only --tagged-paragraph --uniform-spacing --width:text --goal:text",
    operands: "read",
  },
  column: {
    options:
      "-t -s:text -o:text -c:text -x -n -e -J -N:text -R:text -H:text -l:text --table --separator:text --output-separator:text --output-width:text --fillrows",
    operands: "read",
  },
  expand: { options: "-i -t:text --initial --tabs:text", operands: "read" },
  unexpand: { options: "-a -t:text --all --first-only --tabs:text", operands: "read" },
  rev: { options: "-0 --zero", operands: "read" },
  diff: {
    options:
      "-q -s -c -C:text -u -U:text -e -n -y -W:text -p -F:text -t -T -l -r -N -P -x:text -X:read -S:text -i " +
      "-E -Z -b -w -B -I:text -a -d --normal --brief --report-identical-files --context?=text " +
      "--unified?=text --ed --rcs --side-by-side --width:text --left-column --suppress-common-lines " +
      "--show-c-function --show-function-line:text --label:text --expand-tabs --initial-tab --tabsize:text " +
      "--suppress-blank-empty --paginate --recursive --no-dereference --new-file --unidirectional-new-file " +
      "--ignore-file-name-case --no-ignore-file-name-case --exclude:text --exclude-from:read " +
      "--starting-file:text --from-file:read --to-file:read --ignore-case --ignore-tab-expansion " +
      "--ignore-trailing-space --ignore-space-change --ignore-all-space --ignore-blank-lines " +
      "--ignore-matching-lines:text --binary --text --strip-trailing-cr --minimal --horizon-lines:text " +
      "--speed-large-files --color?=text --palette:text --old-group-format:text --new-group-format:text " +
      "--changed-group-format:text --unchanged-group-format:text --line-format:text --old-line-format:text " +
      "--new-line-format:text --unchanged-line-format:text",
    operands: "read",
  },
  cmp: { options: "-b -i:text -l -n:text -s --print-bytes --ignore-initial:text --verbose --bytes:text --quiet --silent", operands: "read" },
  file: {
    options:
      "-b -i -L -h -z -Z -s -k -N -e:text -f:read -m:read --brief --mime --mime-type --mime-encoding " +
      "--files-from:read --magic-file:read --dereference --no-dereference",
    operands: "read",
  },
  stat: { options: "-L -f -t -c:text --format:text --printf:text --dereference --file-system --terse --cached?=text", operands: "path" },
  ls: {
    options:
      "-a -A -b -B -c -C -d -f -F -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x " +
      "-X -Z -1 -I:text -w:text -T:text --all --almost-all --author --escape --block-size:text " +
      "--ignore-backups --color?=text --directory --dired --classify?=text --file-type --format:text " +
      "--full-time --group-directories-first --no-group --human-readable --si --dereference-command-line " +
      "--dereference-command-line-symlink-to-dir --hide:text --hyperlink?=text --indicator-style:text " +
      "--inode --ignore:text --kibibytes --dereference --numeric-uid-gid --literal --hide-control-chars " +
      "--show-control-chars --quote-name --quoting-style:text --reverse --recursive --size --sort:text " +
      "--time:text --time-style:text --tabsize:text --width:text --context --zero",
    operands: "path",
  },
  tree: {
    options:
      "-a -d -l -f -x -L:text -P:text -I:text -i -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -C -n -J -X " +
      "-o:write --noreport --dirsfirst --gitignore --prune --filelimit:text --charset:text",
    operands: "path",
  },
  du: {
    options:
      "-a -b -c -d:text -h -k -m -s -x -L -H -P -l -0 --all --apparent-size --block-size:text --bytes " +
      "--total --max-depth:text --human-readable --si --summarize --one-file-system --exclude:text " +
      "--exclude-from:read --threshold:text --time?=text --time-style:text --dereference --count-links " +
      "--inodes --null",
    operands: "path",
  },
  df: {
    options:
      "-a -h -H -i -k -l -P -T -t:text -x:text --all --human-readable --si --inodes --local --portability " +
      "--print-type --type:text --exclude-type:text --output?=text --total --block-size:text",
    operands: "path",
  },
  realpath: {
    options:
      "-e -m -L -P -q -s -z --relative-to:path --relative-base:path --canonicalize-existing " +
      "--canonicalize-missing --logical --physical --quiet --strip --no-symlinks --zero",
    operands: "path",
  },
  readlink: {
    options: "-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero",
    operands: "path",
  },
  basename: { options: "-a -s:text -z --multiple --suffix:text --zero", operands: "text" },
  dirname: { options: "-z --zero", operands: "text" },
  mkdir: { options: "-m:text -p -v -Z --mode:text --parents --verbose --context?=text", operands: "write" },
  rmdir: { options: "-p -v --ignore-fail-on-non-empty --parents --verbose", operands: "write" },
  touch: { options: "-a -c -d:text -f -h -m -r:path -t:text --no-create --date:text --no-dereference --reference:path --time:text", operands: "write" },
  rm: {
    options: "-f -i -I -r -R -d -v --force --interactive?=text --one-file-system --no-preserve-root --preserve-root?=text --recursive --dir --verbose",
    operands: "write",
  },
  cp: {
    options:
      "-a -b -d -f -i -H -l -L -n -P -p -R -r -s! -S:text -t:write -T -u -v -x -Z --archive " +
      "--attributes-only --backup?=text --copy-contents --debug --force --interactive --link --dereference " +
      "--no-clobber --no-dereference --preserve?=text --no-preserve:text --parents --recursive " +
      "--reflink?=text --remove-destination --sparse:text --strip-trailing-slashes --symbolic-link! " +
      "--suffix:text --target-directory:write --no-target-directory --update?=text --verbose " +
      "--one-file-system --context?=text",
    operands: { rest: "read", last: "write" },
  },
  mv: {
    options:
      "-b -f -i -n -S:text -t:write -T -u -v -Z --backup?=text --force --interactive --no-clobber " +
      "--strip-trailing-slashes --suffix:text --target-directory:write --no-target-directory --update?=text " +
      "--verbose --context",
    operands: "write",
  },
  ln: {
    options:
      "-b -f -i -L -n -P -r -s -S:text -t:write -T -v --backup?=text --force --interactive --logical " +
      "--no-dereference --physical --relative --symbolic --suffix:text --target-directory:write " +
      "--no-target-directory --verbose",
    operands: "write",
  },
  chmod: {
    options: "-c -f -v -R --changes --silent --quiet --verbose --recursive --reference:path --no-preserve-root --preserve-root",
    operands: { lead: ["text"], leadUnless: ["--reference"], rest: "write" },
  },
  chown: {
    options:
      "-c -f -v -R -h -H -L -P --changes --silent --quiet --verbose --recursive --dereference " +
      "--no-dereference --from:text --reference:path --no-preserve-root --preserve-root",
    operands: { lead: ["text"], leadUnless: ["--reference"], rest: "write" },
  },
  chgrp: {
    options:
      "-c -f -v -R -h -H -L -P --changes --silent --quiet --verbose --recursive --dereference " +
      "--no-dereference --reference:path --no-preserve-root --preserve-root",
    operands: { lead: ["text"], leadUnless: ["--reference"], rest: "write" },
  },
  tee: { options: "-a -i -p --append --ignore-interrupts --output-error?=text", operands: "write" },
  truncate: { options: "-c -o -r:path -s:text --no-create --io-blocks --reference:path --size:text", operands: "write" },
  shred: {
    options: "-f -n:text -s:text -u -v -x -z --force --iterations:text --random-source:read --size:text --remove?=text --verbose --exact --zero",
    operands: "write",
  },
  split: {
    options:
      "-a:text -b:text -C:text -d -l:text -n:text -t:text -x -e -u --additional-suffix:text --bytes:text " +
      "--line-bytes:text --lines:text --number:text --numeric-suffixes?=text --hex-suffixes?=text " +
      "--suffix-length:text --separator:text --elide-empty-files --unbuffered --verbose --filter:runs",
    operands: { lead: ["read"], rest: "write" },
  },
  od: {
    options:
      "-A:text -j:text -N:text -S:text -t:text -v -w?=text -a -b -c -d -f -i -l -o -s -x " +
      "--address-radix:text --endian:text --skip-bytes:text --read-bytes:text --strings?=text --format:text " +
      "--output-duplicates --width?=text --traditional",
    operands: "read",
  },
  hexdump: { options: "-b -c -C -d -o -x -e:text -f:read -n:text -s:text -v -L?=text", operands: "read" },
  xxd: { options: "-a -b -c:text -C -E -e -g:text -h -i -l:text -n:text -o:text -p -r -R:text -s:text -u -d", operands: { lead: ["read"], rest: "write" } },
  strings: {
    options:
      "-a -d -f -n:text -t:text -e:text -w -s:text --all --data --print-file-name --bytes:text --radix:text " +
      "--encoding:text --output-separator:text --include-all-whitespace",
    operands: "read",
  },
  base64: { options: "-d -i -w:text --decode --ignore-garbage --wrap:text", operands: "read" },
  base32: { options: "-d -i -w:text --decode --ignore-garbage --wrap:text", operands: "read" },
  md5sum: CHECKSUM,
  sha1sum: CHECKSUM,
  sha224sum: CHECKSUM,
  sha256sum: CHECKSUM,
  sha384sum: CHECKSUM,
  sha512sum: CHECKSUM,
  b2sum: CHECKSUM,
  cksum: { options: "-a:text -l:text --algorithm:text --length:text --raw --tag --untagged --base64 --check --zero", operands: "read" },
  gzip: { options: COMPRESS, operands: "write" },
  gunzip: { options: COMPRESS, operands: "write" },
  bzip2: { options: `${COMPRESS} -z -s --compress --small`, operands: "write" },
  xz: { options: `${COMPRESS} -z -T:text -e --compress --threads:text --extreme`, operands: "write" },
  zcat: { options: "-f -l -q -v -r --force --list --quiet --verbose", operands: "read" },
  unzip: { options: "-l -t -o -n -q -qq -p -c -j -v -z -d:write -x:text", operands: { lead: ["read"], rest: "path" } },
  zip: {
    options:
      "-r -q -j -m -u -f -d -D -e -y -0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -x:text -i:text -P:text -T! -TT:runs " +
      "--unzip-command:runs -@! --recurse-paths --quiet --junk-paths --move --update --freshen --delete " +
      "--exclude:text --include:text --test!",
    operands: { lead: ["write"], rest: "read" },
  },
  jq: {
    options:
      "-r -j -c -n -s -e -a -S -C -M -R -0 --tab --indent:text --arg:text,text --argjson:text,text " +
      "--slurpfile:text,read --rawfile:text,read --args --jsonargs -f:read --from-file:read -L:path --seq " +
      "--stream --stream-errors --raw-output --raw-output0 --join-output --compact-output --null-input " +
      "--slurp --exit-status --ascii-output --sort-keys --color-output --monochrome-output --raw-input " +
      "--unbuffered",
    operands: { lead: ["text"], leadUnless: ["-f", "--from-file"], rest: "read" },
  },
  install: {
    options:
      "-b -c -C -d -D -p -s -v -g:text -m:text -o:text -S:text -t:write -T --backup?=text --compare " +
      "--directory --group:text --mode:text --owner:text --preserve-timestamps --strip --strip-program:runs " +
      "--suffix:text --target-directory:write --no-target-directory --verbose",
    operands: { rest: "read", last: "write" },
  },
  patch: {
    options:
      "-b -E -f -l -N -R -s -t -u -c -e -n --backup --remove-empty-files --force --ignore-whitespace " +
      "--forward --reverse --silent --quiet --batch --unified --context --normal --dry-run --verbose " +
      "-p:text --strip:text -i:read --input:read -o:write --output:write -d:project --directory:project " +
      "-r:write --reject-file:write -F:text --fuzz:text -V:text -z:text --suffix:text --merge?=text",
    operands: { lead: ["write"], rest: "read" },
  },
  yq: {
    options:
      "-r -j -c -n -s -e -o:text -p:text -i! -I:text -P -C -M --output-format:text --input-format:text " +
      "--inplace! --indent:text --prettyPrint --null-input --exit-status --raw-output",
    operands: { lead: ["text"], rest: "read" },
  },
};

const VIM: SpecInput = {
  options:
    "-c:runs --cmd:runs -S:runs -u:runs -U:runs -s:runs -i:write -w:write -W:write -T:text -e! -E! -es! " +
    "-N -n -R -M -m -b -l -r -L -Z -d -y -p -o -O -x -h -v -V?=text! --clean --noplugin --not-a-term " +
    "--version --help --ttyfail",
  operands: "write",
};

/** Editors and pagers run commands given with `+cmd` or their own options. */
export const EDITOR_PROGRAMS: Record<string, SpecInput> = {
  vim: VIM,
  vi: VIM,
  nvim: VIM,
  view: VIM,
  ex: VIM,
  vimdiff: VIM,
  nano: {
    options: "-B -E -I -L -N -R -S -U -c -i -k -l -m -n -q -t -u -v -w -x -y -Y:text -T:text -s:runs --speller:runs -o:path -C:write --backupdir:write -r:text",
    operands: "write",
  },
  emacs: { risk: "runs Emacs Lisp from its init files and options", anyFlag: true, operands: "write" },
  man: {
    options:
      "-a -k -f -w -W -l! --local-file! -c -i -I -L:text -M:path -S:text -s:text -P:runs --pager:runs " +
      "-H?=runs --html?=runs -T?=text -E:text -R:text -7 --ascii --where --whatis --apropos",
    // A page named with a slash is a file man reads and shows.
    operands: "path",
  },
};
