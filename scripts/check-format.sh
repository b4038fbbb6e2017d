#!/usr/bin/env bash
# Checks that the C++ lines changed since the merge-base with main (on main:
# since the last commit), committed or not, and new untracked files, are laid
# out as .clang-format says. Only changed lines are checked, so old code is never reformatted.
# Exits 77 (a skip for ctest) with the reason when clang-format or git is absent.
set -uo pipefail
cd "$(dirname "$0")/.."
skip() { echo "check-format: skipped: $*"; exit 77; }

format=$(command -v clang-format-15 || command -v clang-format) || skip "clang-format-15 is not installed (scripts/install-deps.sh installs it)"
diff_tool=$(command -v clang-format-diff-15 || command -v clang-format-diff) || skip "clang-format-diff is not installed (it comes with clang-format-15)"
command -v git > /dev/null || skip "git is not installed"
git rev-parse --git-dir > /dev/null 2>&1 || skip "not a git checkout"

base=""
for ref in main origin/main; do
  if git rev-parse --verify -q "$ref" > /dev/null; then
    base=$(git merge-base HEAD "$ref") && break
  fi
done
if [ -z "$base" ] || [ "$base" = "$(git rev-parse HEAD)" ]; then
  base=$(git rev-parse -q --verify HEAD~1) || skip "no earlier commit to compare with"
fi

# Tracked changes against the base, and new files git does not track yet (all their lines).
changes() {
  git diff -U0 --no-color "$base" -- '*.cpp' '*.h'
  git ls-files --others --exclude-standard -- '*.cpp' '*.h' | while read -r f; do
    git diff --no-index -U0 --no-color /dev/null "$f"
  done
}
out=$(changes | "$diff_tool" -p1 -binary "$format")
if [ -n "$out" ]; then
  echo "$out"
  echo "check-format: the changed lines above are not formatted (since $(git rev-parse --short "$base")): apply with"
  echo "  git diff -U0 $(git rev-parse --short "$base") -- '*.cpp' '*.h' | $(basename "$diff_tool") -p1 -i   (new files: git add -N them first)"
  exit 1
fi
echo "check-format: lines changed since $(git rev-parse --short "$base") are formatted"
