// Uses the installed sfg runtime (docs/install.md): reads a text trace into two analyses made
// by name, side by side, and checks what they report.
#include <sfg/runtime/analyses.hpp>
#include <sfg/runtime/trace.hpp>

#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "consumer: FAIL: %s\n", what);
        ++failures;
    }
}

// Runs hb and fasttrack over `text`; returns hb's findings (fasttrack must agree).
std::vector<sfg::Finding> races(std::string_view text, sfg::Symbols& syms, const char* name) {
    const std::unique_ptr<sfg::RunningAnalysis> hb = sfg::make_analysis("hb");
    const std::unique_ptr<sfg::RunningAnalysis> ft = sfg::make_analysis("fasttrack");
    sfg::Fanout both;
    both.add(hb->analysis());
    both.add(ft->analysis());
    const sfg::TraceResult result = sfg::read_trace_text(text, name, syms, both);
    both.finish(syms);
    if (!result.ok()) {
        std::fprintf(stderr, "consumer: %s\n", result.error->to_string().c_str());
        ++failures;
        return {};
    }
    expect(hb->findings(syms).size() == ft->findings(syms).size(), "hb and fasttrack disagree");
    return hb->findings(syms);
}

} // namespace

int main() {
    expect(sfg::find_analysis("goldilocks") != nullptr && sfg::make_analysis("nope") == nullptr,
           "analyses by name");
    // T1 writes x without the lock: one race, on x, between event 4 and event 2.
    sfg::Symbols syms;
    expect(races("T0|acq(m)\nT0|w(x)\nT0|rel(m)\nT1|w(x)\n", syms, "racy.std").size() == 1,
           "the racy trace has one race");
    sfg::Symbols again;
    const std::vector<sfg::Finding> wr = races("T0|w(x)\nT1|r(x)\n", again, "wr.std");
    expect(wr.size() == 1 && wr[0].kind == sfg::FindingKind::race && wr[0].var == "x" &&
               wr[0].access.op == sfg::Op::read && wr[0].with && wr[0].with->event == 1,
           "the write-read race is on x, event 2 against event 1");

    // The same accesses under the lock: no race.
    sfg::Symbols locked;
    expect(races("T0|acq(m)\nT0|w(x)\nT0|rel(m)\nT1|acq(m)\nT1|w(x)\nT1|rel(m)\n", locked,
                 "locked.std")
               .empty(),
           "the locked trace has no race");

    // Ill-formed input is an error: T0 releases a lock it does not hold.
    sfg::Symbols bad;
    const std::unique_ptr<sfg::RunningAnalysis> ignored = sfg::make_analysis("hb");
    expect(!sfg::read_trace_text("T0|rel(m)\n", "bad.std", bad, ignored->analysis()).ok(),
           "releasing an unheld lock is an error");

    if (failures == 0)
        std::printf("consumer: sfg::runtime works\n");
    return failures == 0 ? 0 : 1;
}
