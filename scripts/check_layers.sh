#!/usr/bin/env bash
# Checks every include against the layer table of LAYERS (its comments say the format;
# docs/architecture.md, "Layers"): each `#include "..."` and `#include <sfg/...>` of the scanned
# folders is resolved to a file (the includer's folder first, then LAYERS' include-dirs) or to an
# `outside` header, mapped to its layer by its path, and must be of the includer's layer or of one
# it may use. Also checks that the table of docs/architecture.md says what LAYERS says.
# Prints `FILE:LINE: LAYER may not include HEADER (layer X)` for each include outside the table and
# `FILE:LINE: HEADER maps to no layer` for a header of no layer; exits 1 if it printed anything.
# Usage: check_layers.sh [ROOT]   (ROOT: the tree holding LAYERS; default this repository)
# bash and awk only (POSIX awk: Debian's mawk will do).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
[ -f LAYERS ] || { echo "check_layers: no LAYERS in $root" >&2; exit 2; }

words() { awk -v k="$1" '$1 == k { for (i = 2; i <= NF; i++) print $i }' LAYERS; }
mapfile -t scan < <(words scan)
mapfile -t skip < <(words skip)
mapfile -t incdirs < <(words include-dir)
[ ${#scan[@]} -gt 0 ] || { echo "check_layers: LAYERS scans nothing" >&2; exit 2; }

prune=()
for s in "${skip[@]}"; do prune+=(-path "$s" -prune -o); done
# Every file of the scanned folders and the include directories: what an include may resolve to.
known=$(mktemp)
trap 'rm -f "$known"' EXIT
find "${scan[@]}" "${incdirs[@]}" -type f -print 2>/dev/null | sort -u >"$known"
mapfile -t sources < <(find "${scan[@]}" "${prune[@]}" -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cpp.in' -o -name '*.hpp.in' \) \
    -print | sort)

awk '
function fail(msg) { print msg; failed = 1 }
# "a/b/../c/./d" -> "a/c/d"; "" when it climbs out of the tree.
function norm(p,    n, parts, out, k, i) {
    n = split(p, parts, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == ".") continue
        if (parts[i] == "..") { if (k == 0) return ""; k--; continue }
        out[++k] = parts[i]
    }
    p = ""
    for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
    return p
}
function glob_re(g,    r, c, i) {
    r = "^"
    for (i = 1; i <= length(g); i++) {
        c = substr(g, i, 1)
        if (c == "*") r = r ".*"
        else if (index(".+?(){}|$/", c)) r = r "[" c "]"
        else if (index("^[]\\", c)) r = r "\\" c
        else r = r c
    }
    return r "$"
}
# The layer of a file by the longest path that holds it; "" for none.
function layer_of(f,    i, best, len) {
    best = ""; len = -1
    for (i = 1; i <= npaths; i++)
        if ((f == pth[i] || substr(f, 1, length(pth[i]) + 1) == pth[i] "/") && length(pth[i]) > len) {
            best = pth_layer[i]; len = length(pth[i])
        }
    return best
}
# Whether layer a may include a header of layer b.
function may(a, b) { return a == b || ((a SUBSEP b) in uses) }
# A layer or group name as the layers it stands for, into out[] (by name).
function expand(name, out,    n, m, i) {
    if (name in group) { n = split(group[name], m, " "); for (i = 1; i <= n; i++) out[m[i]] = 1 }
    else out[name] = 1
}
FNR == 1 { argi++ }
argi == 1 {                                   # LAYERS
    sub(/#.*/, "")
    if (NF == 0) next
    if ($1 == "layer") {
        if ($2 in declared) fail("LAYERS:" FNR ": layer " $2 " declared twice")
        declared[$2] = 1; order[++nlayers] = $2
        for (i = 3; i <= NF; i++) pending[$2] = pending[$2] " " $i
    } else if ($1 == "group") {
        for (i = 3; i <= NF; i++) group[$2] = group[$2] " " $i
    } else if ($1 == "path") {
        for (i = 3; i <= NF; i++) { pth[++npaths] = norm($i); pth_layer[npaths] = $2 }
    } else if ($1 == "outside") {
        for (i = 3; i <= NF; i++) { out_re[++nout] = glob_re($i); out_layer[nout] = $2 }
    } else if ($1 == "include-dir") {
        for (i = 2; i <= NF; i++) incdir[++nincdirs] = norm($i)
    } else if ($1 == "table") {
        table_file = $2; table_prefix = $3
    } else if ($1 != "scan" && $1 != "skip") {
        fail("LAYERS:" FNR ": unknown directive " $1)
    }
    next
}
argi == 2 {                                   # the files an include may resolve to
    if (!done_layers) {
        done_layers = 1
        for (l in pending) {
            n = split(pending[l], u, " ")
            for (i = 1; i <= n; i++) {
                if (!(u[i] in declared) && !(u[i] in group))
                    fail("LAYERS: layer " l " uses " u[i] ", which is no layer or group")
                delete ex; expand(u[i], ex)
                for (x in ex) uses[l, x] = 1
            }
        }
        for (i = 1; i <= npaths; i++)
            if (!(pth_layer[i] in declared)) fail("LAYERS: path " pth[i] " of undeclared layer " pth_layer[i])
    }
    exists[$0] = 1
    next
}
FNR == 1 {                                    # a source file
    dir = FILENAME; sub(/\/[^\/]*$/, "", dir); if (dir == FILENAME) dir = ""
    me = layer_of(FILENAME)
    if (me == "") fail(FILENAME ": in no layer (LAYERS has no path for it)")
}
/^[ \t]*#[ \t]*include[ \t]*("|<sfg\/)/ {
    line = $0
    sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
    quoted = substr(line, 1, 1) == "\""
    inc = substr(line, 2); sub(/[">].*/, "", inc)
    file = ""
    if (quoted && (f = norm((dir == "" ? "" : dir "/") inc)) != "" && (f in exists)) file = f
    for (i = 1; file == "" && i <= nincdirs; i++)
        if ((f = norm(incdir[i] "/" inc)) != "" && (f in exists)) file = f
    hl = ""
    if (file != "") hl = layer_of(file)
    else for (i = 1; i <= nout && hl == ""; i++) if (inc ~ out_re[i]) hl = out_layer[i]
    if (hl == "") fail(FILENAME ":" FNR ": " inc " maps to no layer")
    else if (me != "" && !may(me, hl))
        fail(FILENAME ":" FNR ": " me " may not include " inc " (layer " hl ")")
}
# The layers `list` (split at `sep`) of the table or picture line `rowno` must be exactly NAME`s uses.
function check_uses(name, list, sep, what,    n, w, i, k, listed) {
    if (!(name in declared)) { fail(table_file ":" rowno ": " what " " name " is no layer of LAYERS"); return }
    sub(/^[ \t]+/, "", list); sub(/[ \t]+$/, "", list)
    n = split(list, w, sep)
    for (i = 1; i <= n; i++) {
        if (w[i] == "nothing" && n == 1) continue
        listed[w[i]] = 1
        if (!may(name, w[i]) || w[i] == name)
            fail(table_file ":" rowno ": " name " may use " w[i] ", LAYERS says it may not")
    }
    for (k = 1; k <= nlayers; k++)
        if (((name SUBSEP order[k]) in uses) && !(order[k] in listed))
            fail(table_file ":" rowno ": " name " may use " order[k] " (LAYERS), the " what " does not say so")
}
END {
    if (table_file == "") exit failed
    # Each row "| `PREFIX NAME/` | ... | USES |" of the table must list exactly NAME`s uses.
    while ((getline row < table_file) > 0) {
        ++rowno
        # A line of the picture, " PREFIX NAME/  ──► A/ B/ ...": exactly the uses of NAME.
        if (match(row, /^ +[^ ]+\/ +──► /)) {
            name = row; sub(/^ +/, "", name); sub(/\/ .*/, "", name)
            if (index(name, table_prefix) != 1) continue
            name = substr(name, length(table_prefix) + 1)
            rest = substr(row, RSTART + RLENGTH); gsub(/\//, "", rest)
            check_uses(name, rest, " +", "arrow")
            continue
        }
        if (index(row, "| `" table_prefix) != 1) continue
        name = substr(row, length(table_prefix) + 4); sub(/`.*/, "", name)
        if (name !~ /^[A-Za-z0-9_-]+\/$/) continue
        sub(/\/$/, "", name)
        cells = row; sub(/[ \t]*\|[ \t]*$/, "", cells)
        last = cells; sub(/.*\|[ \t]*/, "", last)
        seen_row[name] = 1
        check_uses(name, last, "[ \t]*,[ \t]*", "row")
    }
    close(table_file)
    if (rowno == 0) fail(table_file ": cannot read it")
    for (k = 1; k <= nlayers; k++) {
        p = 0; want = table_prefix order[k]
        for (i = 1; i <= npaths; i++)
            if (pth_layer[i] == order[k] && (pth[i] == want ||
                substr(pth[i], length(pth[i]) - length(want)) == "/" want)) p = 1
        if (p && !(order[k] in seen_row))
            fail(table_file ": no row for layer " order[k] " (| `" table_prefix order[k] "/` | ... |)")
    }
    exit failed
}
' LAYERS "$known" "${sources[@]}"
