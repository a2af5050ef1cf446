#!/usr/bin/env bash
# The page only renders (issue 33): web/ includes core/model's value headers and core/operations'
# headers, never a planner's own (core/flexflow, core/alpa) nor the solver (glpk.h), and only
# web/panels and web/platform include Dear ImGui. Each remaining exception is listed, with its
# reason, in tests/arch/web_include_exceptions.txt ("FILE HEADER  # why"); the check fails on any
# other, and on an exception that no longer occurs (so the list only shrinks).
# Usage: tests/arch/check_includes.sh [REPO_ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"
exceptions=tests/arch/web_include_exceptions.txt

# Header names a web file must not include: every header of the two planners, and GLPK's.
forbidden=$( (cd core/flexflow && ls *.h; cd ../alpa && ls *.h) | sort -u)
found=$(mktemp)
trap 'rm -f "$found"' EXIT
while IFS= read -r file; do
  # Quoted or angled includes; a path like core/alpa/x.h counts by its last part.
  { grep -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^">]+[">]' "$file" || true; } | sed -E 's/.*[<"]([^">]+)[">]/\1/' |
    while IFS= read -r header; do
      base=${header##*/}
      if [[ "$header" == core/flexflow/* || "$header" == core/alpa/* ]] || grep -qxF "$base" <<<"$forbidden"; then
        echo "$file $base"
      elif [[ "$base" == glpk.h ]]; then
        echo "$file $base"
      elif [[ "$base" == imgui*.h ]] && [[ "$file" != web/panels/* && "$file" != web/platform/* ]]; then
        echo "$file $base"
      fi
    done
done < <(find web -name '*.h' -o -name '*.cpp' | sort) | sort -u >"$found"

allowed=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$exceptions" | awk 'NF == 2 {print $1, $2}' | sort -u)
status=0
new=$(comm -23 "$found" <(echo "$allowed"))
if [[ -n "$new" ]]; then
  echo "check_includes: web/ includes a planner's header, glpk.h, or imgui.h outside panels/platform:" >&2
  sed 's/^/  /' <<<"$new" >&2
  echo "  go through core/operations (a typed operation or result) instead" >&2
  status=1
fi
gone=$(comm -13 "$found" <(echo "$allowed") | sed '/^$/d')
if [[ -n "$gone" ]]; then
  echo "check_includes: listed in $exceptions but no longer included (remove the line):" >&2
  sed 's/^/  /' <<<"$gone" >&2
  status=1
fi
[[ $status -eq 0 ]] && echo "check_includes: web/ includes no planner header outside the $(grep -c . <<<"$allowed") listed exceptions"
# The same, followed through other headers: which core/operations headers still hand the page a
# planner's types (tests/arch/web_planner_leaks.txt, a list that only shrinks).
python3 "$root/tests/arch/planner_leaks.py" "$root" || status=1
exit $status
