import type { SpecInput } from "../spec.js";

/** Programs that move data over the network. `data` values read the file after `@` or `<`. */
export const NETWORK_PROGRAMS: Record<string, SpecInput> = {
  curl: {
    options:
      "-s -S -L -f -i -I -k -v -O -J -G -N -4 -6 -# -Z --silent --show-error --location --fail " +
      "--fail-with-body --include --head --insecure --verbose --remote-name --remote-header-name --get " +
      "--no-buffer --compressed --http1.1 --http2 --globoff --progress-bar --parallel --fail-early " +
      "--no-progress-meter " +
      "-o:write --output:write --output-dir:write -D:write --dump-header:write -c:write --cookie-jar:write " +
      "--trace:write --trace-ascii:write --stderr:write --create-dirs " +
      "-d:data --data:data --data-binary:data --data-raw:text --data-ascii:data --data-urlencode:data " +
      "--json:data -F:data --form:data --form-string:text -T:read --upload-file:read -K:read --config:read " +
      "-b:data --cookie:data " +
      "-H:data --header:data -X:text --request:text -u:text --user:text -A:text --user-agent:text -e:text " +
      "--referer:text -m:text --max-time:text --connect-timeout:text --retry:text --retry-delay:text " +
      "--retry-max-time:text -w:data --write-out:data -x:text --proxy:text -r:text --range:text -C:text " +
      "--continue-at:text --url:text --cacert:read --capath:path --cert:read -E:read --key:read " +
      "--netrc-file:read -n --netrc --limit-rate:text --max-filesize:text --resolve:text --connect-to:text " +
      "--interface:text --unix-socket:path --abstract-unix-socket:text -z:text --time-cond:text " +
      "--oauth2-bearer:text --variable:data --expand-url:text --noproxy:text --socks5:text --socks5-hostname:text",
    operands: "text",
  },
  wget: {
    options:
      "-q -v -nv -c -N -r -np -nd -nH -k -p -m -S --quiet --verbose --no-verbose --continue --timestamping " +
      "--recursive --no-parent --no-directories --no-host-directories --convert-links --page-requisites " +
      "--mirror --server-response --spider --no-check-certificate --no-clobber -nc " +
      "-O:write --output-document:write -o:write --output-file:write -a:write --append-output:write " +
      "-P:write --directory-prefix:write -i:read --input-file:read --load-cookies:read --save-cookies:write " +
      "--post-file:read --body-file:read --ca-certificate:read --certificate:read --private-key:read " +
      "--config:runs -e:runs --execute:runs " +
      "-t:text --tries:text -T:text --timeout:text -l:text --level:text -A:text --accept:text -R:text " +
      "--reject:text -U:text --user-agent:text --header:text --post-data:text --method:text " +
      "--body-data:text --user:text --password:text --limit-rate:text -w:text --wait:text -Q:text " +
      "--quota:text",
    operands: "text",
  },
  scp: {
    options: "-3 -4 -6 -A -B -C -O -p -q -r -T -v -c:text -D:text -F:runs -i:read -J:text -l:text -o:runs -P:text -S:runs -X:text",
    operands: { rest: "read", last: "write" },
  },
  rsync: {
    options:
      "-v -q -c -a -r -R -b -u -l -L -k -K -H -p -E -A -X -o -g -D -t -O -J -S -n -W -x -y -z -h -P -i -8 " +
      "-0 -4 -6 -I --verbose --quiet --checksum --archive --recursive --relative --backup --update --links " +
      "--copy-links --safe-links --hard-links --perms --executability --acls --xattrs --owner --group " +
      "--devices --specials --times --omit-dir-times --sparse --dry-run --whole-file --one-file-system " +
      "--existing --ignore-existing --remove-source-files --delete --delete-before --delete-during " +
      "--delete-after --delete-excluded --force --prune-empty-dirs --numeric-ids --ignore-times --size-only " +
      "--compress --stats --human-readable --progress --partial --itemize-changes --mkpath --no-motd " +
      "--from0 --protect-args --ipv4 --ipv6 --inplace --append --list-only " +
      "-e:runs --rsh:runs --rsync-path:runs -f:text --filter:text -F --exclude:text --include:text " +
      "--exclude-from:read --include-from:read --files-from:names --backup-dir:write --suffix:text " +
      "--chmod:text --chown:text --max-size:text --min-size:text --timeout:text --contimeout:text " +
      "--bwlimit:text --log-file:write --log-file-format:text --out-format:text --password-file:read " +
      "--partial-dir:write --temp-dir:write --compare-dest:path --copy-dest:path --link-dest:path -T:write " +
      "--modify-window:text --info:text --debug:text -B:text --block-size:text --port:text --address:text " +
      "--sockopts:text --checksum-choice:text --compress-choice:text",
    operands: { rest: "read", last: "write" },
  },
};
