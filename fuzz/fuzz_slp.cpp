// fuzz_slp: bytes as an SLP (docs/compressed.md; the magic is prepended when missing, so
// mutations reach the sections): read_slp, well-formedness on the grammar, and hb and eraser on
// the grammar; when the trace it generates is small, these must agree with the expansion: the
// checker's verdict and error, hb's races, eraser's warnings.
#include "trace_harness.hpp"

#include "sfg/runtime/analysis_eraser.hpp"
#include "sfg/runtime/analysis_hb.hpp"
#include "sfg/runtime/slp.hpp"
#include "sfg/runtime/slp_eraser.hpp"
#include "sfg/runtime/slp_hb.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static constexpr std::string_view magic = "SFGSLP1\n";
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (!bytes.starts_with(magic))
        bytes.insert(0, magic);
    sfg::Symbols syms;
    sfg::Slp slp;
    if (sfg::read_slp(bytes, "fuzz.slp", syms, slp))
        return 0;
    // As in the trace harnesses: vector clocks and summaries over thousands of threads are what
    // --max-memory stops in sfgc.
    if (syms.threads.size() > sfg::fuzz::max_trace_threads)
        return 0;
    const auto error = sfg::check_slp_well_formed(slp, "fuzz.slp", syms);
    if (slp.events() > 100000) {
        if (!error) { // only the grammar: the expansion would take too long
            (void)sfg::SlpHb(slp, syms).races();
            (void)sfg::slp_eraser_warnings(slp, syms);
        }
        return 0;
    }
    sfg::HbDetector hb;
    sfg::EraserDetector eraser;
    sfg::Fanout both;
    both.add(hb);
    both.add(eraser);
    const sfg::TraceResult r = sfg::expand_slp(slp, "fuzz.slp", syms, both);
    if (error.has_value() != r.error.has_value() ||
        (error && error->to_string() != r.error->to_string()))
        sfg::fuzz::fail("well-formedness on the grammar disagrees with the expansion: " +
                        (error ? error->to_string() : std::string("well-formed")) + " | " +
                        (r.error ? r.error->to_string() : std::string("well-formed")));
    if (error)
        return 0;
    const std::string grammar_races = sfg::fuzz::race_key(sfg::SlpHb(slp, syms).races(), syms);
    if (grammar_races != sfg::fuzz::race_key(hb.races(), syms))
        sfg::fuzz::fail("hb on the grammar " + grammar_races + "| on the expansion " +
                        sfg::fuzz::race_key(hb.races(), syms));
    auto warnings = [&](const std::vector<sfg::LocksetWarning>& ws) {
        std::string s;
        for (const sfg::Finding& f : sfg::to_findings(ws, syms))
            s += f.var + "@" + std::to_string(f.access.event) + "/" +
                 std::to_string(f.with ? f.with->event : 0) + " " + f.message + "\n";
        return s;
    };
    if (warnings(sfg::slp_eraser_warnings(slp, syms)) != warnings(eraser.warnings()))
        sfg::fuzz::fail("eraser on the grammar " + warnings(sfg::slp_eraser_warnings(slp, syms)) +
                        "| on the expansion " + warnings(eraser.warnings()));
    return 0;
}
