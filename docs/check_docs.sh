#!/usr/bin/env bash
# The `docs_pictures` test: keeps docs/*.md true to the real sfgc.
#   1. every picture a page references, img/NAME-sfg.svg or img/NAME-net.svg, is drawn from
#      docs/examples/NAME.sfg or specs/thesis/NAME.sfg (exactly one of them) into a temp dir;
#   2. every ```sfg block in a page compiles (exit 0), every ```sfg-error block is rejected
#      (exit 2) and never crashes;
#   3. every docs/examples/*.sfg compiles and passes --verify-net.
# Usage: check_docs.sh SFGC SOURCE_DIR
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 SFGC SOURCE_DIR" >&2
    exit 2
fi
sfgc=$1
cd "$2" || exit 2
[ -x "$sfgc" ] || { echo "check_docs: '$sfgc' is not built (make sfgc)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/img" "$tmp/blocks"
failures=0
fail() {
    echo "check_docs: FAIL: $*" >&2
    failures=$((failures + 1))
}

pages=(docs/*.md)
[ -e "${pages[0]}" ] || { fail "no docs/*.md"; exit 1; }

# 1. Pictures: Markdown images ](img/NAME-VIEW.svg) and HTML src="img/NAME-VIEW.svg".
pictures=0
while IFS=: read -r page ref; do
    base=${ref#img/}
    base=${base%.svg}
    view=${base##*-}
    name=${base%-*}
    out="$tmp/img/$name-$view.svg"
    [ -s "$out" ] && continue
    specs=()
    for d in docs/examples specs/thesis; do
        [ -f "$d/$name.sfg" ] && specs+=("$d/$name.sfg")
    done
    if [ ${#specs[@]} -eq 0 ]; then
        fail "$page references $ref, but neither docs/examples/$name.sfg nor specs/thesis/$name.sfg exists"
        continue
    fi
    if [ ${#specs[@]} -gt 1 ]; then
        fail "$page references $ref, which is ambiguous: ${specs[*]}"
        continue
    fi
    if ! "$sfgc" "${specs[0]}" --view "$view" --svg "$out" 2>"$tmp/stderr"; then
        fail "$page references $ref: sfgc ${specs[0]} --view $view --svg failed:"
        cat "$tmp/stderr" >&2
        continue
    fi
    if ! [ -s "$out" ] || ! grep -q '<svg' "$out"; then
        fail "$page references $ref: sfgc wrote no SVG"
        continue
    fi
    pictures=$((pictures + 1))
done < <(grep -oE '(\]\(|src=")img/[A-Za-z0-9_]+-(sfg|net)\.svg' "${pages[@]}" /dev/null |
          sed -E 's/:(\]\(|src=")/:/' | sort -u)

# A picture reference in any other form (wrong view, other extension) is a mistake.
if bad=$(grep -noE '(\]\(|src=")img/[^ )"]*' "${pages[@]}" /dev/null |
         grep -vE 'img/[A-Za-z0-9_]+-(sfg|net)\.svg$'); then
    fail "picture references that the docs target does not produce:"
    echo "$bad" >&2
fi

# 2. Code blocks: ```sfg must compile, ```sfg-error must be rejected with exit 2.
blocks=0
for page in "${pages[@]}"; do
    stem=$(basename "$page" .md)
    awk -v dir="$tmp/blocks" -v stem="$stem" '
        /^```sfg-error[ \t]*$/ { n++; f = sprintf("%s/%s-%03d-L%d.error.sfg", dir, stem, n, NR + 1); next }
        /^```sfg[ \t]*$/       { n++; f = sprintf("%s/%s-%03d-L%d.ok.sfg", dir, stem, n, NR + 1); next }
        /^```/                 { f = ""; next }
        f != ""                { print > f }
    ' "$page"
done
for block in "$tmp"/blocks/*.sfg; do
    [ -e "$block" ] || continue
    blocks=$((blocks + 1))
    where=$(basename "$block")
    page="docs/${where%%-*}.md"
    line=${where#*-L}
    line=${line%%.*}
    "$sfgc" "$block" >/dev/null 2>"$tmp/stderr"
    status=$?
    case "$block" in
    *.ok.sfg) want=0 ;;
    *) want=2 ;;
    esac
    if [ $status -ne $want ]; then
        fail "$page:$line: the \`\`\`sfg block exits $status, expected $want:"
        cat "$tmp/stderr" >&2
    fi
    if [ $want -eq 0 ] && grep -q ': error:' "$tmp/stderr"; then
        fail "$page:$line: the \`\`\`sfg block reports an error"
        cat "$tmp/stderr" >&2
    fi
done

# 3. Example specs.
examples=0
for spec in docs/examples/*.sfg; do
    [ -e "$spec" ] || continue
    examples=$((examples + 1))
    if ! "$sfgc" "$spec" --verify-net >/dev/null 2>"$tmp/stderr"; then
        fail "$spec does not compile or its net breaks an invariant:"
        cat "$tmp/stderr" >&2
    fi
done

echo "check_docs: $pictures pictures, $blocks code blocks, $examples example specs checked"
if [ $failures -ne 0 ]; then
    echo "check_docs: $failures failure(s)" >&2
    exit 1
fi
