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

// The last phase of a loop of period k from i: phases and inner labels repeat, the back label
// (labels[i + k - 1]) the same each round; when more follows, the loop ends with a whole round
// (its out-mode is its last phase). 0 unless two whole rounds repeat.
std::size_t periodic_end(const std::vector<Phase>& ph, const std::vector<Label>& lb, std::size_t i,
                         std::size_t k) {
    const std::size_t n = ph.size();
    if (i + k >= n)
        return 0;
    std::size_t e = i + k - 1;
    while (e + 1 < n && fits(ph[e + 1].mode, ph[e + 1 - k].mode) &&
           (e < i + k || lb[e] == lb[e - k]))
        ++e;
    if (e + 1 < n)
        e = i + (e - i + 1) / k * k - 1;
    return e + 1 >= i + 2 * k ? e : 0;
}

// The last phase of a run joined by one label in which the first mode comes again; 0 when none.
std::size_t alternative_end(const std::vector<Phase>& ph, const std::vector<Label>& lb,
                            std::size_t i) {
    std::size_t e = i;
    while (e + 1 < ph.size() && lb[e] == lb[i])
        ++e;
    const auto recurs = [&](std::size_t j) {
        for (std::size_t l = j + 1; l <= e; ++l)
            if (ph[l].mode == ph[j].mode)
                return true;
        return false;
    };
    if (e < i + 2 || !recurs(i)) // a first phase that never comes again stays before the loop
        return 0;
    std::vector<Mode> distinct;
    for (std::size_t j = i; j <= e; ++j)
        if (std::find(distinct.begin(), distinct.end(), ph[j].mode) == distinct.end())
            distinct.push_back(ph[j].mode);
    return distinct.size() < e - i + 1 ? e : 0;
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
    for (std::size_t j = i; j <= e; ++j)
        if (std::find(el.modes.begin(), el.modes.end(), ph[j].mode) == el.modes.end())
            el.modes.push_back(ph[j].mode);
    // The modes another one covers go: decided for all first (a predicate of erase_if must not
    // read the vector it is compacting).
    std::vector<Mode> kept;
    for (const Mode& m : el.modes)
        if (std::none_of(el.modes.begin(), el.modes.end(),
                         [&](const Mode& o) { return !(o == m) && fits(m, o); }))
            kept.push_back(m);
    el.modes = std::move(kept);
    std::sort(el.modes.begin(), el.modes.end(), [](const Mode& a, const Mode& b) {
        return std::tie(a.kind, a.threads, a.lock) < std::tie(b.kind, b.threads, b.lock);
    });
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
    std::size_t i = 0;
    while (i < ph.size()) {
        std::size_t best_end = 0, best_k = 0;
        for (std::size_t k = 1;
             k <= max_period && !best_end && i + 1 < ph.size() && chooses_order(lb[i]); ++k)
            if (const std::size_t e = periodic_end(ph, lb, i, k))
                best_end = e, best_k = k;
        if (const std::size_t e = alternative_end(ph, lb, i); e > best_end)
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
