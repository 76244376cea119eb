// The candidate-marking simulation: the deterministic analysis of thesis Figure 4.15 over the
// rules of Figure 4.14, one variable at a time.
#include "enforce_impl.hpp"

#include <algorithm>
#include <bit>

namespace sfg {

using namespace enforce_detail;

namespace {
std::size_t idx(std::int64_t i) {
    return static_cast<std::size_t>(i);
}

bool contains(std::span<const std::int32_t> m, std::int32_t p) {
    for (std::int32_t q : m) // markings hold one token per thread (Lemma 4.3.10): tiny
        if (q == p)
            return true;
    return false;
}
} // namespace

namespace enforce_detail {

bool enabled(const Shape& s, std::span<const std::int32_t> m, int r) {
    for (std::int32_t p : s.pre(r))
        if (!contains(m, p))
            return false;
    for (std::int32_t p : s.post(r))
        if (contains(m, p))
            return false;
    return true;
}

namespace {
// out = (m \ •r) ∪ r•, sorted.
void fire_one(const Shape& s, std::span<const std::int32_t> m, int r,
              std::vector<std::int32_t>& out) {
    out.clear();
    const auto pre = s.pre(r);
    for (std::int32_t p : m)
        if (std::find(pre.begin(), pre.end(), p) == pre.end())
            out.push_back(p);
    const auto post = s.post(r);
    out.insert(out.end(), post.begin(), post.end());
    std::sort(out.begin(), out.end());
}
} // namespace

void fire_closed(const Shape& s, std::span<const std::int32_t> m, int r,
                 std::vector<std::int32_t>& out, std::vector<std::int32_t>& tmp) {
    fire_one(s, m, r, out);
    // [SYNC]: a sync transition can only become enabled through a place just marked. In nets
    // of Figure 4.11 at most one fires (its post-set is PreRcv places, which enable no sync), but
    // iterate to a fixed point anyway.
    for (bool changed = true; changed;) {
        changed = false;
        for (std::int32_t p : out) {
            for (std::int32_t sy : s.place_syncs[idx(p)]) {
                if (enabled(s, out, sy)) {
                    fire_one(s, out, sy, tmp);
                    out.swap(tmp);
                    changed = true;
                    break;
                }
            }
            if (changed)
                break;
        }
    }
}

std::uint64_t hash_marking(std::span<const std::int32_t> m) {
    std::uint64_t h = 0x9e3779b97f4a7c15ull ^ m.size();
    for (std::int32_t p : m) {
        h ^= static_cast<std::uint32_t>(p);
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

void CandidateBuilder::start(Candidates& out, std::size_t expected) {
    out_ = &out;
    out.clear();
    hashed_ = expected > linear_limit;
    if (!hashed_)
        return;
    const std::size_t size = std::bit_ceil(expected * 2);
    offsets_.assign(size, 0);
    mask_ = size - 1;
}

bool CandidateBuilder::add(std::span<const std::int32_t> m) {
    Candidates& out = *out_;
    if (!hashed_) {
        for (std::size_t i = 0; i < out.data.size(); i += static_cast<std::size_t>(out.data[i]) + 1)
            if (static_cast<std::size_t>(out.data[i]) == m.size() &&
                std::equal(m.begin(), m.end(),
                           out.data.begin() + static_cast<std::ptrdiff_t>(i + 1)))
                return false;
        out.push(m);
        return true;
    }
    for (std::size_t h = hash_marking(m) & mask_;; h = (h + 1) & mask_) {
        const std::uint32_t o = offsets_[h];
        if (o == 0) {
            offsets_[h] = static_cast<std::uint32_t>(out.data.size()) + 1;
            out.push(m);
            return true;
        }
        const auto len = static_cast<std::size_t>(out.data[o - 1]);
        if (len == m.size() && std::equal(m.begin(), m.end(), out.data.begin() + o))
            return false;
    }
}

} // namespace enforce_detail

// A sync op on one variable: L' = L ∪ { close(M -r->) | M ∈ L, r ∈ trs enabled by M }
// ([SKIP] keeps every M; [SEND]/[RECEIVE] fire r; [SYNC] closes).
void Enforcer::Impl::sync_step(std::uint32_t vi, std::span<const std::int32_t> trs) {
    ++stats.variable_visits;
    Var& v = vars[vi];
    const Shape& s = shapes[v.shape];

    // The successors first; many visits have none (no candidate holds the token the op needs),
    // and then nothing changes.
    successors.clear();
    v.cands.for_each([&](std::span<const std::int32_t> m) {
        for (std::int32_t r : trs) {
            if (m.size() == 1 && s.single_next[idx(r)] >= 0) { // {•r} -r-> -sync-> {q}
                if (m[0] == s.pre(r)[0])
                    successors.push(std::span<const std::int32_t>(&s.single_next[idx(r)], 1));
                continue;
            }
            if (enabled(s, m, r)) {
                fire_closed(s, m, r, fired, tmp);
                successors.push(fired);
            }
        }
    });
    if (successors.count == 0)
        return;

    ++stats.candidate_updates;
    builder.start(next, v.cands.count + successors.count);
    v.cands.for_each([&](std::span<const std::int32_t> m) { builder.add(m); });
    successors.for_each([&](std::span<const std::int32_t> m) { builder.add(m); });
    v.cands.data.swap(next.data);
    std::swap(v.cands.count, next.count);
    stats.max_candidates = std::max<std::uint64_t>(stats.max_candidates, v.cands.count);
}

namespace {
// dst = max(dst, src) over a column, branch-free (which one wins is data, and a branch would
// mispredict); returns whether dst grew. Times are below 2^63, so the signed compare that AVX2
// has is exact.
[[gnu::always_inline]] inline bool
merge_max(std::uint64_t* __restrict dst, const std::uint64_t* __restrict src, std::size_t rows) {
    std::uint64_t grew = 0;
    for (std::size_t p = 0; p < rows; ++p) {
        const auto d = static_cast<std::int64_t>(dst[p]), v = static_cast<std::int64_t>(src[p]);
        const std::uint64_t take = 0 - static_cast<std::uint64_t>(v > d);
        grew |= take;
        dst[p] = (static_cast<std::uint64_t>(v) & take) | (static_cast<std::uint64_t>(d) & ~take);
    }
    return grew != 0;
}

// The rules of one op on one group's table (Enforcer::Impl::group_step); returns whether it
// changed. One dispatch per op, not per rule.
// SFG_SIMD (docs/architecture.md): an AVX2 clone beside the default one, chosen at load time;
// both compile this same loop, the default clone is what builds without SFG_SIMD run.
#if SFG_SIMD && defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) &&      \
    !defined(__SANITIZE_THREAD__)
[[gnu::target_clones("avx2", "default")]]
#endif
bool apply_rules(std::uint64_t* const reach, std::size_t rows,
                 const std::uint32_t* const summary_begin, const std::uint32_t* const summaries,
                 std::span<const Rule> rules, std::uint64_t now) {
    bool changed = false;
    for (const Rule& r : rules) {
        std::uint64_t* dst = reach + std::size_t{r.dst} * rows;
        bool grew = merge_max(dst, reach + std::size_t{r.src} * rows, rows);
        if (r.own >= 0) { // p = p': any start before now reaches dst
            grew |= dst[r.own] != now;
            dst[r.own] = now;
        }
        if (grew) // keep the summaries dst is a member of current
            for (std::uint32_t k = summary_begin[r.dst]; k < summary_begin[r.dst + 1]; ++k)
                merge_max(reach + std::size_t{summaries[k]} * rows, dst, rows);
        changed |= grew;
    }
    return changed;
}
} // namespace

// A sync op on a group of one-token variables at time now = stats.events (enforce_impl.hpp,
// Group): for each rule and each row p, reach[p][dst] = max(reach[p][dst], reach[p][src]), and
// reach[own][dst] = now. No op chains two transitions (snd reads Acc places and writes PreRcv
// ones, rcv the reverse; find_one_token checks it, and merged columns keep the two apart), so
// the order of the rules does not matter.
void Enforcer::Impl::group_step(std::uint32_t gi, std::span<const Rule> rules) {
    ++stats.variable_visits;
    const Group& grp = groups[gi];
    stats.candidate_updates +=
        apply_rules(reach_of(grp), grp.rows, summary_begin_of(grp),
                    summary_begin_of(grp) + grp.cols + 1, rules, stats.events);
}

void Enforcer::Impl::materialize(std::uint32_t vi, Candidates& out) const {
    const Lazy& lz = lazy[vi];
    const Group& grp = groups[idx(vars[vi].group)];
    const Shape& s = shapes[grp.shape];
    out.clear();
    for (const std::int32_t q : s.col_place) {
        const std::uint64_t* col = reach_of(grp) + idx(grp.column[idx(q)]) * grp.rows;
        const std::int32_t qrow = s.place_row[idx(q)];
        bool in = false;
        for (std::uint64_t rows = lz.rows; rows && !in; rows &= rows - 1) {
            const int p = std::countr_zero(rows);
            in = p == qrow || lz.since < col[p];
        }
        if (in)
            out.push(std::span<const std::int32_t>(&q, 1));
    }
}

// A memory op on a lazy variable: the candidates that permit it are the permitting rows q
// reachable from the rows R of the last memory op. None: a violation, described from the
// materialized candidates, then the re-synchronized state { P(a) | a permits it } (one place
// each), or no change when no mode permits it (as memory_step and resync).
void Enforcer::Impl::lazy_memory_step(std::uint32_t vi, std::uint32_t gi, Gid g, std::uint64_t want,
                                      const Event& e) {
    Lazy& lz = lazy[vi];
    const Group& grp = groups[gi];
    std::uint64_t kept = want & lz.rows; // q = p: the candidate stayed where it was
    for (std::uint64_t qs = want & ~kept; qs; qs &= qs - 1) {
        const int q = std::countr_zero(qs);
        const std::uint64_t* col =
            reach_of(grp) + std::size_t{row_column_of(grp)[idx(q)]} * grp.rows;
        for (std::uint64_t rows = lz.rows; rows; rows &= rows - 1)
            if (lz.since < col[std::countr_zero(rows)]) {
                kept |= std::uint64_t{1} << q;
                break;
            }
    }
    if (kept) {
        lz.rows = kept;
        lz.since = stats.events;
        return;
    }

    Var& v = vars[vi];
    ++v.violations;
    if (v.violations == 1 || options.report_all) {
        materialize(vi, v.cands);
        EnforceViolation viol = describe(vi, g, e);
        v.cands.clear();
        viol.after_resync = v.violations > 1;
        if (v.violations == 1)
            first.push_back(viol);
        all.push_back(std::move(viol));
    }
    if (want) {
        lz.rows = want;
        lz.since = stats.events;
    }
}

// A memory op: L' = { M ∈ L | Acc[t:a] ∈ M, a permits it } ([WRITE EXCLUSIVE], [READ EXCLUSIVE],
// [READ SHARED]). An empty L' is a violation; the variable is then re-synchronized.
void Enforcer::Impl::memory_step(std::uint32_t vi, Gid g, const Event& e) {
    Var& v = vars[vi];
    const Shape& s = shapes[v.shape];
    const bool write = e.op == Op::write;
    auto permits = [&](std::span<const std::int32_t> m) {
        if (g < 0)
            return false;
        for (std::int32_t p : m)
            if (s.acc_gid[idx(p)] == g && (!write || s.acc_ex[idx(p)]))
                return true;
        return false;
    };
    std::uint32_t kept = 0;
    v.cands.for_each([&](std::span<const std::int32_t> m) { kept += permits(m); });
    if (kept == v.cands.count && kept > 0)
        return;
    if (kept > 0) { // filter in place: a subset of a distinct set stays distinct
        std::size_t w = 0;
        for (std::size_t i = 0; i < v.cands.data.size();) {
            const auto len = static_cast<std::size_t>(v.cands.data[i]);
            std::span<const std::int32_t> m(v.cands.data.data() + i + 1, len);
            if (permits(m)) {
                std::copy(v.cands.data.begin() + static_cast<std::ptrdiff_t>(i),
                          v.cands.data.begin() + static_cast<std::ptrdiff_t>(i + len + 1),
                          v.cands.data.begin() + static_cast<std::ptrdiff_t>(w));
                w += len + 1;
            }
            i += len + 1;
        }
        v.cands.data.resize(w);
        v.cands.count = kept;
        return;
    }

    // Violation: no candidate permits the access.
    ++v.violations;
    if (v.violations == 1 || options.report_all) {
        EnforceViolation viol = describe(vi, g, e);
        viol.after_resync = v.violations > 1;
        if (v.violations == 1)
            first.push_back(viol);
        all.push_back(std::move(viol));
    }
    resync(vi, g, write);
}

// The re-synchronized state (docs/enforcement.md): { P(a) | a permits the offending access },
// as if the discipline had been (re-)entered at such a mode just before it. When no mode
// permits it at all, the access is ignored and the candidates are kept.
void Enforcer::Impl::resync(std::uint32_t vi, Gid g, bool write) {
    Var& v = vars[vi];
    const Shape& s = shapes[v.shape];
    if (g < 0)
        return;
    bool any = false;
    for (std::size_t a = 0; a < s.mode_acc.size(); ++a)
        if (s.permits(static_cast<int>(a), g, write) && !s.mode_acc[a].empty()) {
            if (!any)
                builder.start(v.cands, s.mode_acc.size());
            any = true;
            builder.add(s.mode_acc[a]);
        }
}

} // namespace sfg
