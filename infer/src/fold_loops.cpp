// Loops where phases repeat (docs/infer.md): the thesis writes repetition as [·]^z, either a
// sequence that comes round again ([RS(t0, t1, t2) ▷^b EX(t0)]^b, Figure 4.5) or threads that
// take turns in any order ([EX(deposit) ⊔ EX(withdraw)]^m, Figure 3.1).
#include "chain.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sfg::infer {

namespace {

constexpr std::size_t max_period = 8;

// Whether a label fixes who goes next: a barrier round or a volatile's value does; a lock, a
// queue or a plain volatile orders but does not choose (thesis Figures 3.1 and 3.3, §5.1: the
// pool), so a fixed round seen in a run is the scheduler's, and the loop is one of alternatives.
bool chooses_order(const Label& l) {
    return l.kind == MechKind::barrier || (l.kind == MechKind::volatile_ && l.value);
}

// Whether mode `a` permits no more than `b`: equal, or RS / LOCK of fewer threads (a round in
// which some thread did not read is still that round).
bool fits(const Mode& a, const Mode& b) {
    if (a == b)
        return true;
    return a.kind == b.kind && a.kind != ModeKind::EX && a.lock == b.lock &&
           std::includes(b.threads.begin(), b.threads.end(), a.threads.begin(), a.threads.end());
}

// A total order of modes, for sorting and indexing them.
bool mode_less(const Mode& a, const Mode& b) {
    return std::tie(a.kind, a.threads, a.lock) < std::tie(b.kind, b.threads, b.lock);
}

// What the loops' searches ask of every phase, computed once from the right (so that folding
// is linear in the phases, times max_period): where the run of one label starting at a phase
// ends, where its mode comes next, and how far a period of k repeats from it.
struct Repeats {
    std::vector<std::size_t> label_end; // the last phase joined to phase i by lb[i] throughout
    std::vector<std::size_t> next_same; // the next phase of ph[i]'s mode, or n
    // reach[k - 1][j]: the last phase e >= j - 1 such that every phase l in [j, e] repeats the one
    // k before it (fits) and is joined to its predecessor as that one was (lb[l-1] == lb[l-1-k]).
    std::vector<std::vector<std::size_t>> reach;

    Repeats(const std::vector<Phase>& ph, const std::vector<Label>& lb) {
        const std::size_t n = ph.size();
        label_end.assign(n, 0);
        next_same.assign(n, n);
        for (std::size_t i = n; i-- > 0;)
            label_end[i] = i + 1 >= n                        ? i
                           : i + 2 < n && lb[i + 1] == lb[i] ? label_end[i + 1]
                                                             : i + 1;
        std::vector<std::size_t> order(n);
        for (std::size_t i = 0; i < n; ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
            return mode_less(ph[x].mode, ph[y].mode);
        });
        for (std::size_t j = 0; j + 1 < n; ++j)
            if (ph[order[j]].mode == ph[order[j + 1]].mode)
                next_same[order[j]] = order[j + 1];
        reach.assign(max_period, std::vector<std::size_t>(n + 1));
        for (std::size_t k = 1; k <= max_period; ++k) {
            std::vector<std::size_t>& r = reach[k - 1];
            r[n] = n - 1;
            for (std::size_t j = n; j-- > 0;)
                r[j] = j > k && fits(ph[j].mode, ph[j - k].mode) && lb[j - 1] == lb[j - 1 - k]
                           ? r[j + 1]
                           : j - 1;
        }
    }
};

// The last phase of a loop of period k from i: phases and inner labels repeat, the back label
// (labels[i + k - 1]) the same each round; when more follows, the loop ends with a whole round
// (its out-mode is its last phase). 0 unless two whole rounds repeat.
std::size_t periodic_end(const std::vector<Phase>& ph, const Repeats& rep, std::size_t i,
                         std::size_t k) {
    const std::size_t n = ph.size();
    if (i + k >= n)
        return 0;
    // The first phase of the second round only has to fit; the rest also repeat their labels.
    std::size_t e = i + k - 1;
    if (fits(ph[i + k].mode, ph[i].mode))
        e = std::max(i + k, rep.reach[k - 1][i + k + 1]);
    if (e + 1 < n)
        e = i + (e - i + 1) / k * k - 1;
    return e + 1 >= i + 2 * k ? e : 0;
}

// The last phase of a run joined by one label in which the first mode comes again; 0 when none.
// (A mode that comes again within the run makes fewer distinct modes than phases.)
std::size_t alternative_end(const Repeats& rep, std::size_t i) {
    const std::size_t e = rep.label_end[i];
    return e >= i + 2 && rep.next_same[i] <= e ? e : 0;
}

Element loop_element(const std::vector<Phase>& ph, const std::vector<Label>& lb, std::size_t i,
                     std::size_t e, std::size_t k) {
    Element el;
    el.phases = e - i + 1;
    for (std::size_t j = i; j <= e; ++j)
        el.accesses += ph[j].accesses;
    if (k) {
        el.kind = Element::Kind::sequence_loop;
        for (std::size_t j = i; j < i + k; ++j)
            el.modes.push_back(ph[j].mode);
        el.inner.assign(lb.begin() + static_cast<std::ptrdiff_t>(i),
                        lb.begin() + static_cast<std::ptrdiff_t>(i + k - 1));
        el.back = lb[i + k - 1];
        el.why = fmt::format("{} phases, {} accesses: a round of {} repeated through {}", el.phases,
                             el.accesses, k, render_label(el.back));
        return el;
    }
    el.kind = Element::Kind::alternative_loop;
    std::vector<Mode> modes;
    for (std::size_t j = i; j <= e; ++j)
        modes.push_back(ph[j].mode);
    std::sort(modes.begin(), modes.end(), mode_less);
    modes.erase(std::unique(modes.begin(), modes.end()), modes.end());
    // The modes another one covers go (an RS or LOCK of fewer threads; an EX covers only
    // itself): decided for all first, then kept in order.
    std::vector<const Mode*> shared; // RS and LOCK
    for (const Mode& m : modes)
        if (m.kind != ModeKind::EX)
            shared.push_back(&m);
    for (const Mode& m : modes)
        if (m.kind == ModeKind::EX ||
            std::none_of(shared.begin(), shared.end(),
                         [&](const Mode* o) { return !(*o == m) && fits(m, *o); }))
            el.modes.push_back(m);
    el.back = lb[i];
    el.why = fmt::format("{} phases, {} accesses: the threads take turns in no fixed order "
                         "through {}",
                         el.phases, el.accesses, render_label(el.back));
    return el;
}

} // namespace

Chain fold_loops(const std::vector<Phase>& ph, const std::vector<Label>& lb,
                 const std::vector<std::string>& whys) {
    Chain c;
    const Repeats rep(ph, lb);
    std::size_t i = 0;
    while (i < ph.size()) {
        std::size_t best_end = 0, best_k = 0;
        for (std::size_t k = 1;
             k <= max_period && !best_end && i + 1 < ph.size() && chooses_order(lb[i]); ++k)
            if (const std::size_t e = periodic_end(ph, rep, i, k))
                best_end = e, best_k = k;
        if (const std::size_t e = alternative_end(rep, i); e > best_end)
            best_end = e, best_k = 0;
        if (i > 0) {
            c.labels.push_back(lb[i - 1]);
            c.whys.push_back(whys[i - 1]);
        }
        if (best_end) {
            c.elements.push_back(loop_element(ph, lb, i, best_end, best_k));
            i = best_end + 1;
            continue;
        }
        Element el;
        el.modes = {ph[i].mode};
        el.accesses = ph[i].accesses;
        el.why = fmt::format("{} {}: {}", ph[i].accesses,
                             ph[i].accesses == 1 ? "access" : "accesses", ph[i].why);
        c.elements.push_back(std::move(el));
        ++i;
    }
    return c;
}

std::string render_mode(const Mode& m, const Declarations* decls) {
    std::string ts = fmt::format("{}", fmt::join(m.threads, ", "));
    if (decls)
        for (const auto& [name, members] : decls->groups)
            if (members == m.threads && m.threads.size() > 1)
                ts = name;
    switch (m.kind) {
    case ModeKind::EX:
        return fmt::format("EX({})", ts);
    case ModeKind::RS:
        return fmt::format("RS({})", ts);
    case ModeKind::LOCK:
        break;
    }
    return fmt::format("LOCK({}: {})", m.lock, ts);
}

std::string render_label(const Label& l) {
    switch (l.kind) {
    case MechKind::fork:
        return "^fork";
    case MechKind::join:
        return "^join";
    case MechKind::volatile_:
        if (l.value)
            return fmt::format("^({} == {})", l.name, *l.value);
        break;
    default:
        break;
    }
    return "^" + l.name;
}

namespace {

// `EX(each W)` when the loop's alternatives are EX of exactly a declared group's threads.
std::optional<std::string> as_group(const Element& el, const Declarations& decls) {
    std::vector<std::string> ts;
    for (const Mode& m : el.modes) {
        if (m.kind != ModeKind::EX)
            return std::nullopt;
        ts.push_back(m.threads[0]);
    }
    std::sort(ts.begin(), ts.end());
    for (const auto& [name, members] : decls.groups)
        if (members == ts)
            return fmt::format("EX(each {})", name);
    return std::nullopt;
}

std::string render_element(const Element& el, const Declarations& decls) {
    switch (el.kind) {
    case Element::Kind::phase:
        return render_mode(el.modes[0], &decls);
    case Element::Kind::sequence_loop: {
        std::string body = render_mode(el.modes[0], &decls);
        for (std::size_t j = 0; j < el.inner.size(); ++j)
            body += fmt::format(" ▷{} {}", render_label(el.inner[j]),
                                render_mode(el.modes[j + 1], &decls));
        return fmt::format("[{}]{}", body, render_label(el.back));
    }
    case Element::Kind::alternative_loop:
        break;
    }
    if (std::optional<std::string> g = as_group(el, decls))
        return fmt::format("[{}]{}", *g, render_label(el.back));
    std::vector<std::string> alts;
    for (const Mode& m : el.modes)
        alts.push_back(render_mode(m, &decls));
    return fmt::format("[{}]{}", fmt::join(alts, " ⊔ "), render_label(el.back));
}

} // namespace

std::string render_chain(const Chain& c, const Declarations& decls) {
    std::string out = render_element(c.elements[0], decls);
    for (std::size_t i = 1; i < c.elements.size(); ++i)
        out += fmt::format(" ▷{} {}", render_label(c.labels[i - 1]),
                           render_element(c.elements[i], decls));
    return out;
}

} // namespace sfg::infer
