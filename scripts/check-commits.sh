#!/usr/bin/env bash
# Commit messages that `git log --oneline` can be read by: a subject of at most 72 characters in the
# imperative, no full stop at its end, then a blank line and a body saying what and why.
#   scripts/check-commits.sh                 every commit since the convention was adopted (the check lane)
#   scripts/check-commits.sh --message FILE  one message (the commit-msg hook: scripts/git-hooks/commit-msg)
# Commits older than ADOPTED predate the rule and are left as they are: history is not rewritten.
set -euo pipefail
cd "$(dirname "$0")/.."
ADOPTED=78d7c17

# Prints what is wrong with the message on standard input, nothing when it is fine.
problems() {
  node -e '
    const text = require("node:fs").readFileSync(0, "utf8").replace(/^#.*\n?/gm, "");
    const [subject = "", second = "", ...rest] = text.split("\n");
    const body = rest.join("\n").trim();
    const found = [];
    if ([...subject].length > 72) found.push(`subject is ${[...subject].length} characters (at most 72)`);
    if (subject.trim() === "") found.push("no subject");
    if (/[.]$/.test(subject)) found.push("subject ends with a full stop");
    if (second.trim() !== "") found.push("no blank line after the subject");
    if (!/^Merge /.test(subject) && body === "") found.push("no body: say what and why");
    if (found.length) console.log(found.join("; "));
  '
}

if [ "${1:-}" = "--message" ]; then
  wrong="$(problems < "$2")"
  [ -z "$wrong" ] || { echo "commit message: $wrong" >&2; exit 1; }
  exit 0
fi

if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "check-commits: not a git checkout, nothing to check" >&2
  exit 0
fi
# A shallow clone may not hold the adoption commit: then every commit it holds is checked.
range=HEAD
git cat-file -e "$ADOPTED^{commit}" 2>/dev/null && range="$ADOPTED..HEAD"
failed=0
for commit in $(git rev-list --no-merges "$range"); do
  wrong="$(git log -1 --format=%B "$commit" | problems)"
  if [ -n "$wrong" ]; then
    echo "$(git log -1 --format='%h %s' "$commit"): $wrong" >&2
    failed=1
  fi
done
exit "$failed"
