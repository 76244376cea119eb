// The same answer as the model (docs/explore.md, "The same answer as sfgc check"): every program
// of specs/programs/ and random programs, run as C++ under sfg::explore with the program's
// disciplines — each statement the sfg operation it stands for, in order, locals as C++ locals,
// `assert e;` as sfg::check — give the classes (dpor) and executions (naive) of `sfgc check`,
// and the same finding keys, violations among them.
//
// The translation, and what it leaves out: explore_translation.hpp.
#include "explore_translation.hpp"
#include "random_program.hpp"
#include "support.hpp"

#include "sfg/explore.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace sfg::checker::test {
namespace {

using Keys = std::set<std::pair<std::string, std::string>>;

// sfgc check's finding keys (docs/programs.md: races and violations by variable; failures and
// deadlocks by line; a deadlock by kind alone here: explore names no line for it).
Keys keys_of(const CheckResult& r) {
    Keys out;
    for (const CheckFinding& f : r.findings) {
        const std::string kind = to_string(f.kind);
        if (f.kind == FindingKind::race || f.kind == FindingKind::violation)
            out.insert({kind, f.var});
        else if (f.kind == FindingKind::assert_ || f.kind == FindingKind::divzero)
            out.insert({kind, std::to_string(f.line().value_or(0))});
        else
            out.insert({kind, ""});
    }
    return out;
}

Keys keys_of(const sfg::explore_report& r) {
    Keys out;
    for (const sfg::explore_finding& f : r.findings) {
        if (f.kind == "race" || f.kind == "violation") {
            out.insert({f.kind, f.var});
        } else if (f.kind == "assert") { // "assert line L" / "divzero line L"
            const std::size_t space = f.var.find(" line ");
            out.insert({f.var.substr(0, space), f.var.substr(space + 6)});
        } else {
            out.insert({f.kind, ""});
        }
    }
    return out;
}

// Compares sfgc check and the translation under explore, with the program's disciplines, on
// `l` (false when the program is left out); `findings` counts the comparisons that had findings,
// `violations` those with a violation.
bool compare(const Loaded& l, const std::string& what, int& findings, int& violations) {
    const Model& m = l.model;
    if (!translatable(m))
        return false;
    const auto uses = [&](Code c) {
        return std::any_of(m.threads.begin(), m.threads.end(), [c](const ThreadCode& t) {
            return std::any_of(t.code.begin(), t.code.end(),
                               [c](const Instr& i) { return i.code == c; });
        });
    };
    const bool cas = uses(Code::cas);
    // A thread the program never joins may still run when the body's thread joins the root
    // threads (a step that commutes with its steps): the classes are the same, the
    // interleavings not. Naive is compared when every fork is joined.
    std::set<std::uint32_t> forked, joined;
    for (const ThreadCode& t : m.threads)
        for (const Instr& i : t.code) {
            if (i.code == Code::fork)
                forked.insert(i.arg);
            else if (i.code == Code::join)
                joined.insert(i.arg);
        }
    const bool all_joined =
        std::includes(joined.begin(), joined.end(), forked.begin(), forked.end());
    for (Mode mode : {Mode::dpor, Mode::naive}) {
        if (mode == Mode::naive && !all_joined)
            continue;
        CheckOptions co;
        co.mode = mode;
        co.max_executions = 20000;
        const CheckResult want = check_model(m, co);
        if (!want.stats.complete) // naive past the bound, dpor compared: compared
            return mode == Mode::naive;
        for (const CheckFinding& f : want.findings)
            if (f.kind == FindingKind::ill_formed)
                return false;
        sfg::explore_options eo;
        eo.mode = mode == Mode::dpor ? sfg::explore_mode::dpor : sfg::explore_mode::naive;
        eo.analyses = translation_analyses(m);
        const sfg::explore_report got = sfg::explore(SpecData(l.spec).spec(), translation(m), eo);
        INFO(what << " (" << to_string(mode) << ")\nexplore: " << got.to_string());
        CHECK(got.complete);
        // One run a class of the dependence both searches use (a cas taken as a write: the
        // classes of the runs, which see a failed cas as a read, may be fewer).
        CHECK(got.executions == want.stats.executions);
        if (mode == Mode::dpor && !cas)
            CHECK(got.classes == want.classes);
        const Keys want_keys = keys_of(want), got_keys = keys_of(got);
        CHECK(got_keys == want_keys);
        findings += !want_keys.empty();
        violations += std::any_of(want_keys.begin(), want_keys.end(),
                                  [](const auto& k) { return k.first == "violation"; });
    }
    return true;
}

} // namespace

TEST_CASE("explore translation: every program of specs/programs/ that translates") {
    int compared = 0, findings = 0, violations = 0;
    std::string left_out;
    for (const auto& dir : std::filesystem::directory_iterator(
             std::filesystem::path(SFG_SOURCE_DIR) / "specs" / "programs")) {
        const std::filesystem::path file = dir.path() / (dir.path().filename().string() + ".sfg");
        if (!std::filesystem::exists(file))
            continue;
        std::optional<Loaded> l = load(read_file(file.string()), file.string());
        REQUIRE(l);
        if (compare(*l, file.filename().string(), findings, violations))
            ++compared;
        else
            left_out += " " + file.stem().string();
    }
    MESSAGE(compared << " programs compared, " << findings << " with findings, " << violations
                     << " with violations; left out:" << left_out);
    CHECK(compared >= 17);
    CHECK(findings >= 8);
    CHECK(violations >= 6);
}

TEST_CASE("explore translation: random programs") {
    int compared = 0, findings = 0, violations = 0, tried = 0;
    const std::uint64_t n = seeds(1000, 300);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        std::string text;
        bool multi_var_await = false;
        switch (seed % 6) {
        case 0:
            text = random_program(seed);
            break;
        case 1:
            text = rmw_program(seed);
            break;
        case 2:
            text = cond_program(seed);
            break;
        case 3:
            text = blocking_program(seed, &multi_var_await);
            break;
        case 4:
            text = barrier_program(seed);
            break;
        default:
            text = queue_program(seed);
            break;
        }
        std::optional<Loaded> l = load(text);
        REQUIRE(l);
        ++tried;
        compared += compare(*l, "seed " + std::to_string(seed) + "\n" + text, findings, violations);
    }
    MESSAGE(compared << " of " << tried << " random programs compared, " << findings
                     << " with findings, " << violations << " with violations");
    CHECK(compared >= at_least(200, n, 300));
    CHECK(compared * 2 >= tried);
    CHECK(violations >= at_least(200, n, 300));
}

} // namespace sfg::checker::test
