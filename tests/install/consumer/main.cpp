// Uses the installed sfg runtime (docs/install.md): reads a text trace into two race detectors
// side by side and checks what they report.
#include <sfg/runtime/analysis_fasttrack.hpp>
#include <sfg/runtime/analysis_hb.hpp>
#include <sfg/runtime/event.hpp>
#include <sfg/runtime/trace.hpp>

#include <cstdio>
#include <string_view>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "consumer: FAIL: %s\n", what);
        ++failures;
    }
}

// Runs hb and fasttrack over `text`; returns the races hb found (fasttrack must agree).
std::size_t races(std::string_view text, sfg::Symbols& syms, const char* name) {
    sfg::HbDetector hb;
    sfg::FastTrackDetector ft;
    sfg::Fanout both;
    both.add(hb);
    both.add(ft);
    const sfg::TraceResult result = sfg::read_trace_text(text, name, syms, both);
    both.finish(syms);
    if (!result.ok()) {
        std::fprintf(stderr, "consumer: %s\n", result.error->to_string().c_str());
        ++failures;
        return 0;
    }
    expect(hb.races().size() == ft.races().size(), "hb and fasttrack disagree");
    return hb.races().size();
}

} // namespace

int main() {
    // T1 writes x without the lock: one race, on x, between event 4 and event 2.
    sfg::Symbols syms;
    const std::size_t n = races("T0|acq(m)\nT0|w(x)\nT0|rel(m)\nT1|w(x)\n", syms, "racy.std");
    expect(n == 1, "the racy trace has one race");
    sfg::HbDetector hb;
    sfg::Symbols again;
    sfg::read_trace_text("T0|w(x)\nT1|r(x)\n", "wr.std", again, hb);
    expect(hb.races().size() == 1 && again.vars.name(hb.races()[0].var) == "x" &&
               hb.races()[0].access.op == sfg::Op::read && hb.races()[0].with.event == 1,
           "the write-read race is on x, event 2 against event 1");

    // The same accesses under the lock: no race.
    sfg::Symbols locked;
    expect(races("T0|acq(m)\nT0|w(x)\nT0|rel(m)\nT1|acq(m)\nT1|w(x)\nT1|rel(m)\n", locked,
                 "locked.std") == 0,
           "the locked trace has no race");

    // Ill-formed input is an error: T0 releases a lock it does not hold.
    sfg::Symbols bad;
    sfg::HbDetector ignored;
    expect(!sfg::read_trace_text("T0|rel(m)\n", "bad.std", bad, ignored).ok(),
           "releasing an unheld lock is an error");

    if (failures == 0)
        std::printf("consumer: sfg::runtime works\n");
    return failures == 0 ? 0 : 1;
}
