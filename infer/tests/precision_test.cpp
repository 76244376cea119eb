// Soundness and precision on random disciplines (docs/infer.md, "How good is it"): specs S from
// the enforcer tests' generator, random well-formed traces (runtime/tests/random_trace.hpp) of
// which those S admits on a variable are S's walks; D is inferred from some of them.
// - Sound, always: check_inferred admits every trace D came from (and D compiles).
// - No looser than S: among fresh traces, every one D admits on the variable S admits too.
// - As loose as S: every fresh trace S admits, D admits.
// The shares of variables with each property are reported, not required: D fits the traces it
// saw, which may show S only in part (docs/infer.md lists where D can admit what S does not).
#include "enforce_testlib.hpp"
#include "infer_testlib.hpp"
#include "random_trace.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/runtime/enforce/enforcer.hpp"

#include <doctest/doctest.h>

#include <random>

using namespace sfg;
using sfg::infer::testing::infer_texts;
using sfg::testing::random_trace;
using sfg::testing::RandomTraceOptions;

namespace {

// Whether `net` admits variable x on `text` (x a name of the trace or not).
bool admits(const Net& net, const std::string& x, const std::string& text) {
    Enforcer enf;
    enf.add_variable(x, net);
    Symbols syms;
    const TraceResult r = read_trace_text(text, "fresh.std", syms, enf);
    REQUIRE(r.ok());
    return enf.violations().empty();
}

bool accesses(const std::string& text, const std::string& x) {
    return text.find("(" + x + ")") != std::string::npos;
}

struct Shares {
    int variables = 0, inferred = 0, no_looser = 0, as_loose = 0, without = 0;
};

void run(std::uint64_t seed, int count, const RandomTraceOptions& o, Shares& s) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < count; ++i) {
        testlib::RandomDisciplines gen{rng, o.threads, o.locks, o.volatiles};
        const std::string x = "x0";
        const Net S = build_petri_net(gen.pick(2) ? gen.guarded(0) : gen.disc(3));
        std::vector<std::string> walks, fresh;
        for (int k = 0; k < 80 && walks.size() < 2; ++k) {
            std::string t = random_trace(rng, o);
            if (accesses(t, x) && admits(S, x, t))
                walks.push_back(std::move(t));
        }
        if (walks.empty())
            continue;
        ++s.variables;
        const auto r = infer_texts(walks);
        INFO(r.spec);
        REQUIRE_FALSE(r.error);
        REQUIRE_MESSAGE(!r.check, *r.check); // sound: D admits the walks it came from
        if (r.disc.at(x).empty()) {
            ++s.without;
            continue;
        }
        ++s.inferred;
        SourceFile file("inferred.sfg", r.spec);
        Diagnostics diags;
        const std::optional<CompiledSpec> spec = compile_spec(file, diags);
        REQUIRE(spec);
        const Net* D = nullptr;
        for (const CompiledVariable& v : spec->variables)
            if (v.name == x)
                D = &*v.net;
        REQUIRE(D);
        bool no_looser = true, as_loose = true;
        for (int k = 0; k < 60; ++k) {
            const std::string t = random_trace(rng, o);
            if (!accesses(t, x))
                continue;
            const bool in_s = admits(S, x, t), in_d = admits(*D, x, t);
            no_looser &= !in_d || in_s;
            as_loose &= !in_s || in_d;
        }
        s.no_looser += no_looser;
        s.as_loose += as_loose;
    }
}

} // namespace

TEST_CASE("random disciplines: D inferred from walks of S admits them; shares of D within S") {
    Shares s;
    run(31, testlib::quarter(400), {4, 2, 2, 2, 1, 40, 60, 30, 0, 0}, s);
    run(32, testlib::quarter(400), {3, 2, 1, 1, 1, 30, 90, 0, 10, 0}, s);
    run(33, testlib::quarter(400), {5, 3, 2, 1, 1, 60, 0, 0, 0, 20}, s);
    MESSAGE("variables " << s.variables << ", with a discipline " << s.inferred
                         << " (without: race or no single mechanism " << s.without
                         << "); D no looser than S on fresh traces " << s.no_looser
                         << ", as loose as S " << s.as_loose);
    CHECK(s.variables > testlib::quarter(400));
    CHECK(s.inferred > s.variables / 2);
}

TEST_CASE("random traces: whatever they hold, the inferred spec compiles and admits them") {
    std::mt19937_64 rng(41);
    const RandomTraceOptions options[] = {{4, 3, 2, 2, 1, 40, 0, 0, 0, 0},
                                          {3, 2, 1, 1, 1, 30, 90, 50, 0, 0},
                                          {5, 3, 2, 2, 1, 60, 50, 30, 10, 20},
                                          {3, 2, 1, 1, 1, 80, 100, 0, 20, 0}};
    int specs = 0, disciplines = 0;
    for (int i = 0; i < testlib::quarter(2000); ++i) {
        const RandomTraceOptions& o = options[i % 4];
        std::vector<std::string> traces;
        for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k)
            traces.push_back(random_trace(rng, o));
        const auto r = infer_texts(traces);
        INFO(r.spec);
        for (const std::string& t : traces)
            INFO(t);
        if (r.error) // two traces may give one name two kinds (a lock and a volatile)
            continue;
        ++specs;
        REQUIRE_MESSAGE(!r.check, *r.check);
        for (const auto& [x, d] : r.disc)
            disciplines += !d.empty();
    }
    MESSAGE("specs " << specs << ", variables with a discipline " << disciplines);
    CHECK(specs > testlib::quarter(1000));
}
