// The inference's cost follows what a variable touched, never threads times objects (docs/infer.md,
// "How it decides"): each case below is quick in linear time and takes seconds, or gigabytes,
// where a step compares everything with everything.
#include "chain.hpp"
#include "infer_testlib.hpp"

#include <chrono>
#include <fstream>

using namespace sfg;
using namespace sfg::infer;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Inferred from trace texts, without the check (these specs are large).
const std::vector<InferredVariable>& infer_only(Inferrer& inf,
                                                const std::vector<std::string>& texts) {
    for (std::size_t i = 0; i < texts.size(); ++i) {
        Symbols syms;
        TraceRecorder rec;
        std::unique_ptr<RunningAnalysis> hb = make_analysis("hb");
        Fanout both;
        both.add(rec), both.add(hb->analysis());
        const std::string name = "t" + std::to_string(i) + ".std";
        const TraceResult read = read_trace_text(texts[i], name, syms, both);
        REQUIRE_MESSAGE(read.ok(), read.error->to_string());
        both.finish(syms);
        REQUIRE_FALSE(inf.add_trace(name, rec, syms, hb->findings(syms)));
    }
    inf.finish();
    return inf.variables();
}

// The resident memory of this process, in MiB (Linux).
double resident_mib() {
    std::ifstream statm("/proc/self/statm");
    double size = 0, resident = 0;
    statm >> size >> resident;
    return resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

} // namespace

TEST_CASE("the recorder's memory follows the (thread, object) pairs used") {
    // Thread i takes lock i: 3,000 pairs. A table of threads x locks would hold 4.5 million.
    std::string t;
    for (int i = 0; i < 3000; ++i)
        t += "u" + std::to_string(i) + "|acq(m" + std::to_string(i) + ")\nu" + std::to_string(i) +
             "|rel(m" + std::to_string(i) + ")\n";
    Symbols syms;
    const double before = resident_mib();
    TraceRecorder rec;
    REQUIRE(read_trace_text(t, "locks.std", syms, rec).ok());
    rec.finish(syms);
    const double grown = resident_mib() - before;
    INFO("grown by " << grown << " MiB");
    CHECK(grown < 32);
    CHECK(rec.objects(7, SyncKind::acq) == std::vector<ObjId>{7});
    CHECK(rec.log(7, SyncKind::rel, 8) == nullptr);
}

TEST_CASE("a boundary looks only at the objects its threads touched") {
    // x passes between a and b through m 10,000 times; a third thread writes 40,000 volatiles
    // that neither touches.
    std::string t = "main|fork(a,b,c)\n";
    for (int i = 0; i < 40000; ++i)
        t += "c|vw(v" + std::to_string(i) + ")\n";
    for (int i = 0; i < 5000; ++i)
        t += "a|w(x)\na|acq(m)\na|rel(m)\nb|acq(m)\nb|rel(m)\nb|w(x)\nb|acq(m)\nb|rel(m)\n"
             "a|acq(m)\na|rel(m)\n";
    Inferrer inf;
    const auto start = std::chrono::steady_clock::now();
    const auto& vars = infer_only(inf, {t});
    CHECK(seconds_since(start) < 1.5);
    REQUIRE(vars.size() == 1);
    CHECK(vars[0].discipline == "[EX(a) ⊔ EX(b)]^m");
}

TEST_CASE("many racy variables: each one's race is looked up, not searched") {
    std::string t = "main|fork(a,b)\n";
    for (int i = 0; i < 30000; ++i)
        t += "a|w(x" + std::to_string(i) + ")\nb|w(x" + std::to_string(i) + ")\n";
    Inferrer inf;
    const auto start = std::chrono::steady_clock::now();
    const auto& vars = infer_only(inf, {t});
    CHECK(seconds_since(start) < 1.5);
    REQUIRE(vars.size() == 30000);
    CHECK(vars[12345].race);
    CHECK(vars[12345].race->event == 2 * 12345 + 3); // b|w(x12345), after fork and a|w
}

TEST_CASE("loops are folded in linear time") {
    // 40,000 phases of distinct threads, each joined to the next by m: no mode comes again, so
    // no loop; a search from every phase to the end would take 800 million steps.
    std::vector<Phase> ph(40000);
    std::vector<Label> lb(ph.size() - 1, Label{MechKind::lock, "m", {}});
    std::vector<std::string> whys(lb.size(), "m");
    for (std::size_t i = 0; i < ph.size(); ++i)
        ph[i].mode.threads = {"t" + std::to_string(i)};
    const auto start = std::chrono::steady_clock::now();
    Chain c = fold_loops(ph, lb, whys);
    CHECK(seconds_since(start) < 1.5);
    CHECK(c.elements.size() == ph.size());
    // The same through a barrier (a label that fixes the order: rounds are looked for too).
    lb.assign(lb.size(), Label{MechKind::barrier, "b", {}});
    const auto again = std::chrono::steady_clock::now();
    c = fold_loops(ph, lb, whys);
    CHECK(seconds_since(again) < 1.5);
    CHECK(c.elements.size() == ph.size());
}

TEST_CASE("chains of many traces: those that begin others found without comparing all pairs") {
    // 20,000 traces, each one thread writing x: 20,000 shapes, none beginning another; and as
    // many traces of one shape, which all go into one chain.
    std::vector<std::string> texts;
    for (int i = 0; i < 20000; ++i)
        texts.push_back("u" + std::to_string(i) + "|w(x)\n");
    for (int i = 0; i < 10000; ++i)
        texts.push_back("main|w(y)\n");
    Inferrer inf;
    const auto start = std::chrono::steady_clock::now();
    const auto& vars = infer_only(inf, texts);
    CHECK(seconds_since(start) < 3);
    REQUIRE(vars.size() == 2);
    CHECK(vars[0].chains.size() == 20000);
    REQUIRE(vars[1].chains.size() == 1);
    CHECK(vars[1].chains[0].traces.size() == 10000);
    CHECK(vars[1].discipline == "EX(main)");
}
